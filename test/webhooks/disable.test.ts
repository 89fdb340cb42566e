/**
 * Subscriptions the worker switches off: at once on 410 Gone, and after three days in which every
 * delivery failed. A switched-off subscription says why and gets no later events.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { until } from '../helpers/net.js';
import {
  apiMs, createArticle, DAY, deliveries, HOUR, isolatedApp, MINUTE, onlyDelivery, readWebhook, SECOND, subscribe, testClock, testWorker,
  type Clock, type Isolated,
} from './support.js';
import type { WebhookWorker } from '../../src/components/webhooks/webhooks.worker.js';
import { readBacklog } from '../../src/components/webhooks/webhooks.backlog.js';

describe('Webhook subscriptions switched off by the worker', () => {
  let h: Isolated;
  const receivers: Receiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>): Promise<Receiver> => {
    const started = await startReceiver(...args);
    receivers.push(started);
    return started;
  };

  before(async () => {
    h = await isolatedApp();
  });

  after(async () => {
    for (const r of receivers) await r.close();
    await h?.close();
  });

  /** Runs the worker now, then at each next due time of the subscription's open deliveries until none is open (or the subscription is off). */
  async function driveToEnd(world: World, webhookId: number, worker: WebhookWorker, clock: Clock): Promise<void> {
    await worker.runOnce();
    for (let round = 0; round < 100; round++) {
      const open = (await deliveries(world, webhookId)).filter((d) => d.status === 'pending' || d.status === 'retrying');
      if (open.length === 0 || !(await readWebhook(world, webhookId)).active) return;
      clock.set(Math.max(clock(), ...open.map((d) => apiMs(d.next_attempt_at!))));
      await worker.runOnce();
    }
    throw new Error('The deliveries did not end within 100 rounds');
  }

  it('When the receiver answers 410, Then the subscription is switched off with a reason, the delivery is failed, and later events are not sent to it', async () => {
    const target = await receiver({ status: 410 });
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, target.url);
    const clock = testClock();
    const worker = testWorker(h.db, clock);
    await createArticle(world);

    await worker.runOnce();

    expect(target.received).to.have.length(1);
    expect(await onlyDelivery(world, webhookId)).to.include({ status: 'failed', attempts: 1, last_response_code: 410, next_attempt_at: null });
    const off = await readWebhook(world, webhookId);
    expect(off.active).to.equal(false);
    expect(off.disabled_reason).to.be.a('string').and.match(/^The endpoint answered 410 Gone at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z\.$/);
    const listed = (await world.as('admin').get('/api/webhooks').expect(200)).body.data.find((w: { id: number }) => w.id === webhookId);
    expect(listed).to.include({ active: false, disabled_reason: off.disabled_reason });

    target.setDefault({ status: 200 });
    await createArticle(world);
    // A switched-off subscription is not pinged either: the answer says it is off.
    const ping = await world.as('admin').post(`/api/webhooks/${webhookId}/ping`).expect(422);
    expect(ping.body.errors.active[0]).to.match(new RegExp(`^Webhook ${webhookId} is switched off`));
    for (const step of [SECOND, HOUR, DAY]) {
      clock.advance(step);
      await worker.runOnce();
    }
    expect(target.received).to.have.length(1);
    expect((await deliveries(world, webhookId)).filter((d) => d.status === 'delivered')).to.deep.equal([]);
  });

  it('When every delivery of a subscription fails for three days (several events), Then it is switched off at the first failure past three days, with a reason', async () => {
    const target = await receiver({ status: 500 });
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, target.url);
    const clock = testClock();
    const t0 = clock();
    const worker = testWorker(h.db, clock);

    for (const day of [0, 1, 2]) {
      clock.set(t0 + day * DAY);
      await createArticle(world);
      await driveToEnd(world, webhookId, worker, clock);
      expect((await readWebhook(world, webhookId)).active, `still active on day ${day}`).to.equal(true);
    }
    expect((await deliveries(world, webhookId)).map((d) => [d.status, d.attempts])).to.deep.equal([['failed', 10], ['failed', 10], ['failed', 10]]);

    // A fourth event just before the three days: its attempts at -60 s, -55 s and -25 s leave it on; the one at +95 s switches it off.
    clock.set(t0 + 3 * DAY - MINUTE);
    await createArticle(world);
    await worker.runOnce();
    for (const due of [3 * DAY - 55 * SECOND, 3 * DAY - 25 * SECOND]) {
      expect((await readWebhook(world, webhookId)).active).to.equal(true);
      clock.set(t0 + due);
      await worker.runOnce();
    }
    expect((await readWebhook(world, webhookId)).active, 'still active before three days are over').to.equal(true);
    const attemptsBefore = target.received.length;
    clock.set(t0 + 3 * DAY + 95 * SECOND);
    await worker.runOnce();
    expect(target.received).to.have.length(attemptsBefore + 1);

    const off = await readWebhook(world, webhookId);
    expect(off.active).to.equal(false);
    expect(off.disabled_reason).to.be.a('string').and.match(/fail/i);
    // Times in a message are ISO 8601, as everywhere else the API shows one.
    const iso = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z';
    expect(off.disabled_reason).to.match(new RegExp(`^Every delivery since ${iso} failed; switched off at ${iso}\\.$`));

    target.setDefault({ status: 200 });
    await createArticle(world);
    clock.advance(DAY);
    await worker.runOnce();
    expect(target.received).to.have.length(attemptsBefore + 1);
  });

  it('When one delivery succeeds in between, Then three days counted from the first failure do not switch the subscription off', async () => {
    const target = await receiver({ status: 500 });
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, target.url);
    const clock = testClock();
    const t0 = clock();
    const worker = testWorker(h.db, clock);

    await createArticle(world);
    await driveToEnd(world, webhookId, worker, clock);
    clock.set(t0 + 2 * DAY);
    target.script({ status: 200 });
    await createArticle(world);
    await worker.runOnce();
    clock.set(t0 + 3 * DAY + HOUR);
    await createArticle(world);
    await worker.runOnce();

    expect((await deliveries(world, webhookId)).map((d) => d.status)).to.deep.equal(['failed', 'delivered', 'retrying']);
    expect(await readWebhook(world, webhookId)).to.include({ active: true, disabled_reason: null });
  });

  it('When a subscription is switched off with deliveries waiting (by a 410, or by PUT), Then they are held with no due time and not sent while it is off, and are sent once it is switched on again', async () => {
    const target = await receiver({ status: 500 });
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, target.url);
    const clock = testClock();
    const worker = testWorker(h.db, clock);
    const admin = world.as('admin');
    const waiting = async () => (await deliveries(world, webhookId)).filter((d) => d.status === 'pending' || d.status === 'retrying');

    // Two deliveries wait for their retry; a third event's first attempt is answered 410.
    await createArticle(world);
    await createArticle(world);
    await worker.runOnce();
    expect((await waiting()).map((d) => d.status)).to.deep.equal(['retrying', 'retrying']);
    target.script({ status: 410 });
    await createArticle(world);
    await worker.runOnce();
    expect((await readWebhook(world, webhookId)).active).to.equal(false);
    const held = await waiting();
    expect(held.map((d) => [d.status, d.next_attempt_at])).to.deep.equal([['retrying', null], ['retrying', null]]);
    expect(target.received).to.have.length(3);

    // While it is off, nothing is sent, however late.
    clock.advance(DAY);
    await worker.runOnce();
    expect(target.received).to.have.length(3);

    // Switched on: due at once, and sent.
    target.setDefault({ status: 200 });
    await admin.put(`/api/webhooks/${webhookId}`).send({ active: true }).expect(200);
    expect((await waiting()).every((d) => d.next_attempt_at !== null && apiMs(d.next_attempt_at) <= Date.now())).to.equal(true);
    await worker.runOnce();
    expect(await waiting()).to.deep.equal([]);
    expect(target.received).to.have.length(5);

    // Switched off by PUT: an event while it is off gets no delivery; a retry waiting is held, and sent once it is on.
    await admin.put(`/api/webhooks/${webhookId}`).send({ active: false }).expect(200);
    await createArticle(world);
    await worker.runOnce();
    expect(await waiting(), 'an event while it is off gets no delivery').to.deep.equal([]);
    target.script({ status: 500 });
    await admin.put(`/api/webhooks/${webhookId}`).send({ active: true }).expect(200);
    await createArticle(world);
    await worker.runOnce();
    expect((await waiting()).map((d) => d.status)).to.deep.equal(['retrying']);
    await admin.put(`/api/webhooks/${webhookId}`).send({ active: false }).expect(200);
    expect((await waiting()).map((d) => [d.status, d.next_attempt_at])).to.deep.equal([['retrying', null]]);
    await admin.put(`/api/webhooks/${webhookId}`).send({ active: true }).expect(200);
    await worker.runOnce();
    expect(await waiting()).to.deep.equal([]);
    expect(target.received).to.have.length(7);
  });

  it('When one send of a subscription answers 410 while another of its sends is under way and then fails, Then that retry is held too', async () => {
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, 'http://127.0.0.1:9/gone');
    await createArticle(world);
    await createArticle(world);
    let goneAnswered!: () => void;
    const gone = new Promise<void>((resolve) => (goneAnswered = resolve));
    let calls = 0;
    const worker = testWorker(h.db, testClock(), {
      send: async () => {
        if (++calls === 2) {
          goneAnswered();
          return { status: 410 };
        }
        // The first send ends only once the other's 410 has switched the subscription off.
        await gone;
        await until(async () => !(await readWebhook(world, webhookId)).active, 10_000, 'the subscription switched off');
        return { status: 500 };
      },
    });
    await worker.runOnce();
    expect(calls).to.equal(2);
    const rows = (await deliveries(world, webhookId)).map((d) => [d.status, d.next_attempt_at]);
    expect(rows.sort()).to.deep.equal([['failed', null], ['retrying', null]]);
  });

  it('When events wait for their fan-out across a switch (workers stopped for a deploy), Then one recorded while the subscription was on gets its delivery, held while it is off, and one recorded while it was off gets none', async () => {
    const target = await receiver({ status: 200 });
    const world = await createWorld(h.app, h.db);
    const { id: webhookId } = await subscribe(world, target.url, ['article.created']);
    const admin = world.as('admin');
    const worker = testWorker(h.db, Date.now as Clock);
    const codes = (): string[] => target.received.map((r) => (JSON.parse(r.body) as { data: { article_code: string } }).data.article_code);

    const backlogBefore = (await readBacklog(h.db)).deliveries;
    const whileOn = await createArticle(world);
    await admin.put(`/api/webhooks/${webhookId}`).send({ active: false }).expect(200);
    await worker.runOnce();
    expect((await deliveries(world, webhookId)).map((d) => [d.status, d.next_attempt_at])).to.deep.equal([['pending', null]]);
    expect(target.received).to.have.length(0);
    // A held delivery is not waiting to be sent: the backlog gauges leave it out.
    expect((await readBacklog(h.db)).deliveries.pending).to.equal(backlogBefore.pending);

    const whileOff = await createArticle(world);
    await admin.put(`/api/webhooks/${webhookId}`).send({ active: true }).expect(200);
    await worker.runOnce();
    expect(codes()).to.deep.equal([whileOn.article_code]);
    const onAgain = await createArticle(world);
    await worker.runOnce();
    expect(codes()).to.deep.equal([whileOn.article_code, onAgain.article_code]);
    expect(codes()).to.not.include(whileOff.article_code);
    expect((await deliveries(world, webhookId)).map((d) => d.status)).to.deep.equal(['delivered', 'delivered']);
  });
});
