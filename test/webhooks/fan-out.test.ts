/**
 * Fan-out under bursts: outbox events become deliveries in bounded statements, so a burst of events
 * times many subscriptions neither exceeds SQLite's compound-SELECT limit nor MariaDB's packet, and
 * an event whose fan-out fails (a poison event) is set aside, reported, and does not stop the rest.
 */
import { expect } from 'chai';
import { listFailedEventsCommand } from '../../src/cli/commands/webhooks.js';
import { MAX_FAN_OUT_ATTEMPTS } from '../../src/components/webhooks/webhooks.fan-out.js';
import { eventId } from '../../src/kernel/ids.js';
import { nowDb } from '../../src/kernel/time.js';
import { createLogger } from '../../src/platform/logger.js';
import { createWorld, unique } from '../helpers/factories.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testEnv } from '../helpers/test-env.js';
import { createArticle, isolatedApp, outboxIds, subscribe, testClock, testWorker, type Isolated } from './support.js';
import { insertStoredEvent } from '../fixtures/faults.js';
import { fanOutOf } from '../fixtures/probes.js';

describe('Webhook fan-out: a burst of events to several subscriptions', () => {
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

  it(`When 200 articles are created with 3 subscriptions on * (${testEnv.engine}), Then one round writes 600 deliveries and sends each webhook-id once per subscription`, async () => {
    const world = await createWorld(h.app, h.db);
    const hooks = [];
    for (let i = 0; i < 3; i++) hooks.push(await subscribe(world, `${receiver.url}/${i}`, ['*']));
    for (let i = 0; i < 200; i += 10) await Promise.all(Array.from({ length: 10 }, () => createArticle(world)));
    const events = await outboxIds(h.db, world.client.id);
    expect(events).to.have.length(200);

    const worker = testWorker(h.db, testClock());
    const first = await worker.runOnce();
    expect(first.fannedOut).to.equal(600);
    for (let round = 0; round < 20 && receiver.received.length < 600; round++) await worker.runOnce();

    const written = await h.db('webhook_deliveries').whereIn('webhook_id', hooks.map((hook) => hook.id)).count({ n: '*' }).first();
    expect(Number(written!.n)).to.equal(600);
    for (let i = 0; i < 3; i++) {
      const ids = receiver.received.filter((r) => r.path === `/hooks/${i}`).map((r) => String(r.headers['webhook-id']));
      expect(ids.slice().sort(), `subscription ${i}`).to.deep.equal(events.slice().sort());
    }
  });

  it(`When events come that no subscription wants (${testEnv.engine}), Then the round marks them dispatched without reading their data, and reads only the data of those one wants`, async () => {
    const world = await createWorld(h.app, h.db);
    for (let i = 0; i < 5; i++) await createArticle(world);
    const worker = testWorker(h.db, testClock());
    const statements: string[] = [];
    const watch = (query: { sql: string }): void => void statements.push(query.sql);
    h.db.on('query', watch);
    try {
      expect((await worker.runOnce()).fannedOut).to.equal(0);
      const reads = statements.filter((sql) => /select .*`data`.* from `outbox_events`/i.test(sql));
      expect(reads, 'no event data read').to.deep.equal([]);
      const hook = await subscribe(world, `${receiver.url}/wanted`, ['article.created']);
      const wanted = await createArticle(world);
      statements.length = 0;
      expect((await worker.runOnce()).fannedOut).to.equal(1);
      expect(statements.filter((sql) => /select .*`data`.* from `outbox_events`/i.test(sql)), 'the wanted event data read once').to.have.length(1);
      const [delivery] = await h.db('webhook_deliveries').where('webhook_id', hook.id);
      expect(JSON.parse(delivery.payload).data.id).to.equal(wanted.id);
    } finally {
      h.db.off('query', watch);
    }
    const waiting = await h.db('outbox_events').where('company_id', world.client.id).whereNull('dispatched_at').count({ n: '*' }).first();
    expect(Number(waiting!.n)).to.equal(0);
  });
});

describe('Webhook fan-out: a poison event', () => {
  const lines: string[] = [];
  const logger = createLogger({ logLevel: 'info', appName: 'test' }, { write: (line: string) => void lines.push(line) });
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

  it(`When one event's stored data is not JSON among good ones (${testEnv.engine}), Then the others are delivered at once, the poison one is counted each round, set aside after ${MAX_FAN_OUT_ATTEMPTS}, listed by the CLI and logged without its data`, async () => {
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, receiver.url, ['*']);
    await createArticle(world);
    await createArticle(world);
    const marker = unique('POISON-DATA-');
    const poison = eventId();
    await insertStoredEvent(h.db, { event_id: poison, company_id: world.client.id, type: 'article.created', data: `{"broken": "${marker}"`, occurred_at: nowDb() });
    await createArticle(world);
    await createArticle(world);
    const good = (await outboxIds(h.db, world.client.id)).filter((id) => id !== poison);
    expect(good).to.have.length(4);

    const worker = testWorker(h.db, testClock(), { logger });
    const rounds = [];
    for (let i = 0; i < MAX_FAN_OUT_ATTEMPTS + 1; i++) rounds.push(await worker.runOnce());

    // The first round delivers every good event; each round counts the poison one until it is set aside.
    expect(rounds.map((r) => r.fanOutFailed)).to.deep.equal([1, 1, 1, 0]);
    expect(rounds[0]!.fannedOut).to.equal(4);
    expect(receiver.ids().slice().sort()).to.deep.equal(good.slice().sort());
    expect(await h.db('webhook_deliveries').where({ webhook_id: webhookId, event_id: poison }).count({ n: '*' }).first()).to.deep.include({ n: 0 });
    const row = await fanOutOf(h.db, poison);
    expect(row).to.include({ fan_out_attempts: MAX_FAN_OUT_ATTEMPTS, dispatched_at: null, fan_out_error: `The stored data of event ${poison} is not valid JSON.` });
    expect(row!.fan_out_failed_at).to.not.equal(null);

    // An event after it flows in one round: the queue is not blocked.
    const later = await createArticle(world);
    expect((await worker.runOnce()).fanOutFailed).to.equal(0);
    expect(receiver.received.some((r) => JSON.parse(r.body).data.id === later.id)).to.equal(true);

    const out: string[] = [];
    await listFailedEventsCommand.run(h.db, { limit: undefined }, out.push.bind(out), () => undefined);
    expect(out[0]).to.equal(`1 event is set aside, their fan-out failed ${MAX_FAN_OUT_ATTEMPTS} times; 1 newest first. requeue-failed-events puts them back once the cause is fixed.`);
    expect(out[2]).to.match(new RegExp(`^${poison}\\s+${world.client.id}\\s+article.created\\s+\\S+Z\\s+${MAX_FAN_OUT_ATTEMPTS}\\s+\\S+Z\\s+The stored data of event ${poison} is not valid JSON\\.$`));

    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string; event?: string; attempts?: number });
    const aboutPoison = logged.filter((l) => l.event === poison);
    expect(aboutPoison.map((l) => [l.level, l.attempts])).to.deep.equal([[40, 1], [40, 2], [50, 3]]);
    expect(aboutPoison[2]!.msg).to.include('set aside');
    for (const line of lines) {
      expect(line).to.not.include(marker);
      expect(line.toLowerCase()).to.not.include('insert into');
    }
  });
});
