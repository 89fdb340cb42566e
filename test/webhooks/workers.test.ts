/**
 * Several webhook workers at once, and workers that die: two workers on one database send each
 * delivery once; the claims of a worker that stopped mid-delivery expire (after its timeout + 20 s)
 * and another worker sends them; a stalled worker that wakes up after its lease changes nothing.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { send as sendHttp, type SendResult } from '../../src/components/webhooks/webhooks.sender.js';
import type { WebhookWorker } from '../../src/components/webhooks/webhooks.worker.js';
import { createDb } from '../../src/platform/db/database.js';
import { createWorld, type World } from '../helpers/factories.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testEnv } from '../helpers/test-env.js';
import {
  createArticle, deliveries, isolatedApp, outboxIds, readWebhook, SECOND, subscribe, testClock, testWorker, type Clock, type Isolated,
} from './support.js';

describe('Webhook workers side by side', () => {
  let h: Isolated;
  let second: Knex | undefined;
  let receiver: Receiver;

  before(async () => {
    h = await isolatedApp();
    // On MariaDB the second worker has a connection pool of its own, as another process would.
    if (testEnv.engine === 'mysql') second = createDb(h.url, { poolMax: 10 });
    receiver = await startReceiver();
  });

  after(async () => {
    await receiver?.close();
    await second?.destroy();
    await h?.close();
  });

  it(`When two workers run rounds concurrently over 50 events (${testEnv.engine}), Then the receiver sees each webhook-id exactly once`, async () => {
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, receiver.url, ['article.created']);
    const workers = [testWorker(h.db, Date.now as Clock), testWorker(second ?? h.db, Date.now as Clock)];
    let writing = true;
    const rounds = { count: 0 };
    const loop = async (worker: WebhookWorker): Promise<void> => {
      const deadline = Date.now() + 20_000;
      while ((writing || new Set(receiver.ids()).size < 50) && Date.now() < deadline) {
        await worker.runOnce();
        rounds.count++;
        // Let I/O in: on SQLite a round may complete in microtasks alone and starve the API requests.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const loops = [...workers, ...workers].map(loop);
    for (let i = 0; i < 50; i += 5) await Promise.all(Array.from({ length: 5 }, () => createArticle(world)));
    writing = false;
    await Promise.all(loops);
    await Promise.all(workers.map((w) => w.runOnce()));

    const events = await outboxIds(h.db, world.client.id);
    expect(events).to.have.length(50);
    expect([...receiver.ids()].sort()).to.deep.equal([...events].sort());
    const log = await deliveries(world, webhookId);
    expect(log).to.have.length(50);
    expect(log.every((d) => d.status === 'delivered' && d.attempts === 1)).to.equal(true);
    expect(rounds.count).to.be.greaterThan(4);
  });

  it('When one worker\'s batch outlasts its lease (40 due deliveries, each slice of 8 taking the whole 10 s timeout), Then a second worker does not send the same deliveries again meanwhile', async () => {
    const slowReceiver = await startReceiver();
    try {
      const world = await createWorld(h.app, h.db);
      await subscribe(world, slowReceiver.url, ['article.created']);
      for (let i = 0; i < 40; i++) await createArticle(world);
      const clock = testClock();
      const t0 = clock();
      const timeoutMs = 10_000; // the default WEBHOOK_TIMEOUT_MS: the lease is 30 s
      const other = testWorker(second ?? h.db, clock, { timeoutMs });
      let otherRan = false;
      const slow = testWorker(h.db, clock, {
        timeoutMs,
        send: async (url, body, headers, options) => {
          clock.advance(timeoutMs / 8); // 8 sends in parallel: a slice of the batch takes the whole timeout
          if (!otherRan && clock() > t0 + timeoutMs + 20_000) {
            otherRan = true;
            await other.runOnce(); // the second worker's round, while the first is still sending its batch
          }
          return sendHttp(url, body, headers, options);
        },
      });
      await slow.runOnce();

      expect(otherRan).to.equal(true);
      const ids = slowReceiver.ids();
      expect(new Set(ids).size).to.equal(40);
      expect(ids.filter((id, i) => ids.indexOf(id) !== i), 'webhook-ids sent twice though no worker died').to.deep.equal([]);
    } finally {
      await slowReceiver.close();
    }
  });
});

describe('Webhook workers that die or stall mid-delivery', () => {
  let h: Isolated;
  let receiver: Receiver;

  before(async () => {
    h = await isolatedApp();
    receiver = await startReceiver();
  });

  after(async () => {
    await receiver?.close();
    await h?.close();
  });

  /** A worker whose sends never answer until `release`: it claims the due deliveries and hangs, as a killed worker leaves them. */
  async function stalledWorker(world: World, clock: Clock, count: number): Promise<{ release(result: SendResult): void; done: Promise<unknown> }> {
    let release!: (result: SendResult) => void;
    const answer = new Promise<SendResult>((resolve) => (release = resolve));
    const worker = testWorker(h.db, clock, { send: () => answer });
    const done = worker.runOnce();
    for (let i = 0; i < 200; i++) {
      const claimed = await h.db('webhook_deliveries as d').join('webhooks as w', 'w.id', 'd.webhook_id').where('w.company_id', world.client.id).whereNotNull('d.claim_token').count({ n: '*' });
      if (Number(claimed[0]!.n) === count) return { release, done };
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`The stalled worker did not claim ${count} deliveries`);
  }

  it('When a worker claimed deliveries and died, Then no other worker takes them before the lease (timeout + 20 s) ends, and then every event is delivered', async () => {
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, receiver.url);
    for (let i = 0; i < 3; i++) await createArticle(world);
    const clock = testClock();
    const t0 = clock();
    const dead = await stalledWorker(world, clock, 3);
    const alive = testWorker(h.db, clock);

    for (const offset of [0, 10 * SECOND, 22 * SECOND]) {
      clock.set(t0 + offset);
      await alive.runOnce();
      expect(receiver.received, `nothing sent at +${offset} ms while the lease holds`).to.deep.equal([]);
    }
    clock.set(t0 + 22 * SECOND + 1);
    await alive.runOnce();

    const events = await outboxIds(h.db, world.client.id);
    expect([...receiver.ids()].sort()).to.deep.equal([...events].sort());
    const log = await deliveries(world, webhookId);
    expect(log.map((d) => [d.status, d.attempts])).to.deep.equal([['delivered', 1], ['delivered', 1], ['delivered', 1]]);

    dead.release({ status: 200 });
    await dead.done;
    expect(await deliveries(world, webhookId)).to.deep.equal(log);
  });

  it('When a stalled worker gets a 410 after its lease was taken over and the delivery delivered, Then its late answer changes neither the delivery nor the subscription', async () => {
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, receiver.url);
    await createArticle(world);
    const clock = testClock();
    const t0 = clock();
    const stalled = await stalledWorker(world, clock, 1);
    clock.set(t0 + 60 * SECOND);
    await testWorker(h.db, clock).runOnce();
    const log = await deliveries(world, webhookId);
    expect(log.map((d) => d.status)).to.deep.equal(['delivered']);

    stalled.release({ status: 410 });
    await stalled.done;

    expect(await deliveries(world, webhookId)).to.deep.equal(log);
    expect(await readWebhook(world, webhookId)).to.include({ active: true, disabled_reason: null });
  });
});
