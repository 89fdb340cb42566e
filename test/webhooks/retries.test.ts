/**
 * Retries of webhook deliveries, on the worker's clock with no jitter: the schedule of 5 s, 30 s,
 * 2 min, 10 min, 30 min, 1 h, 3 h, 6 h and 12 h, Retry-After, timeouts and refused connections,
 * redirects that are not followed, and private targets that are never retried.
 */
import { expect } from 'chai';
import { createWorld, type World } from '../helpers/factories.js';
import { closedPort } from '../helpers/net.js';
import {
  apiMs, createArticle, DAY, HOUR, MINUTE, onlyDelivery, SECOND, subscribe, testClock, testWorker, workerSuite,
  type Clock,
} from './support.js';

const SCHEDULE = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR];

describe('Webhook retries', () => {
  const suite = workerSuite();
  const receiver = suite.receiver;

  /** A fresh world (so no other subscription sees its events) subscribed to `url`, and one article.created queued. */
  async function oneEvent(url: string): Promise<{ world: World; webhookId: number }> {
    const world = await createWorld(suite.app.app, suite.app.db);
    const { id } = await subscribe(world, url);
    await createArticle(world);
    return { world, webhookId: id };
  }

  it('When the receiver answers 500, 500, then 200, Then it gets exactly three attempts with one webhook-id, at +0, +5 s and +35 s', async () => {
    const target = await receiver();
    target.script({ status: 500 }, { status: 500 });
    const { world, webhookId } = await oneEvent(target.url);
    const clock = testClock();
    const t0 = clock();
    const worker = testWorker(suite.app.db, clock);

    await worker.runOnce();
    expect(target.received).to.have.length(1);
    const first = await onlyDelivery(world, webhookId);
    expect(first).to.include({ status: 'retrying', attempts: 1, last_response_code: 500, delivered_at: null });
    expect(first.last_error).to.be.a('string').and.not.equal('');
    expect(apiMs(first.next_attempt_at!)).to.equal(t0 + 5 * SECOND);

    clock.set(t0 + 4900);
    await worker.runOnce();
    expect(target.received, 'no attempt at +4.9 s').to.have.length(1);
    clock.set(t0 + 5 * SECOND);
    await worker.runOnce();
    expect(target.received).to.have.length(2);
    const second = await onlyDelivery(world, webhookId);
    expect(second).to.include({ status: 'retrying', attempts: 2, last_response_code: 500 });
    expect(apiMs(second.next_attempt_at!)).to.equal(t0 + 35 * SECOND);

    clock.set(t0 + 34_900);
    await worker.runOnce();
    expect(target.received, 'no attempt at +34.9 s').to.have.length(2);
    clock.set(t0 + 35 * SECOND);
    await worker.runOnce();
    expect(target.received).to.have.length(3);
    const done = await onlyDelivery(world, webhookId);
    expect(done).to.include({ status: 'delivered', attempts: 3, last_response_code: 200, next_attempt_at: null });
    expect(apiMs(done.delivered_at!)).to.equal(t0 + 35 * SECOND);

    clock.advance(DAY);
    await worker.runOnce();
    expect(target.received).to.have.length(3);
    const ids = target.ids();
    expect(new Set(ids).size).to.equal(1);
    expect(ids[0]).to.equal(done.event_id);
  });

  it('When the receiver answers 429 with Retry-After: 120, Then the next attempt waits 120 s instead of 5 s', async () => {
    const target = await receiver();
    target.script({ status: 429, headers: { 'retry-after': '120' } });
    const { world, webhookId } = await oneEvent(target.url);
    const clock = testClock();
    const t0 = clock();
    const worker = testWorker(suite.app.db, clock);

    await worker.runOnce();
    const waiting = await onlyDelivery(world, webhookId);
    expect(waiting).to.include({ status: 'retrying', attempts: 1, last_response_code: 429 });
    expect(apiMs(waiting.next_attempt_at!)).to.equal(t0 + 120 * SECOND);
    for (const offset of [5 * SECOND, 119_900]) {
      clock.set(t0 + offset);
      await worker.runOnce();
      expect(target.received, `no attempt at +${offset} ms`).to.have.length(1);
    }
    clock.set(t0 + 120 * SECOND);
    await worker.runOnce();
    expect(target.received).to.have.length(2);
    expect(await onlyDelivery(world, webhookId)).to.include({ status: 'delivered', attempts: 2, last_response_code: 200 });
  });

  it('When the jitter is at its ends (random 0 and 0.9999), Then the first retry waits 4 s and 6 s (5 s ±20 %)', async () => {
    for (const [random, wait] of [[0, 4000], [0.9999, 6000]] as const) {
      const target = await receiver({ status: 500 });
      const { world, webhookId } = await oneEvent(target.url);
      const clock = testClock();
      await testWorker(suite.app.db, clock, { random: () => random }).runOnce();
      const row = await onlyDelivery(world, webhookId);
      expect(apiMs(row.next_attempt_at!) - clock(), `random ${random}`).to.equal(wait);
    }
  });

  it('When the receiver never answers (timeout 300 ms), Then the attempt is retried with last_error set and no response code', async () => {
    const target = await receiver('hang');
    const { world, webhookId } = await oneEvent(target.url);
    const clock = testClock();
    const t0 = clock();
    const worker = testWorker(suite.app.db, clock, { timeoutMs: 300 });

    const started = Date.now();
    await worker.runOnce();
    expect(Date.now() - started).to.be.below(5000);
    expect(target.received).to.have.length(1);
    const timedOut = await onlyDelivery(world, webhookId);
    expect(timedOut).to.include({ status: 'retrying', attempts: 1, last_response_code: null });
    expect(timedOut.last_error).to.match(/300 ms/);
    expect(apiMs(timedOut.next_attempt_at!)).to.equal(t0 + 5 * SECOND);

    target.setDefault({ status: 204 });
    clock.set(t0 + 5 * SECOND);
    await worker.runOnce();
    expect(target.ids()).to.deep.equal([timedOut.event_id, timedOut.event_id]);
    expect(await onlyDelivery(world, webhookId)).to.include({ status: 'delivered', attempts: 2, last_response_code: 204, last_error: null });
  });

  it('When the connection is refused (closed port), Then the attempt is retried with last_error set', async () => {
    const port = await closedPort();
    const { world, webhookId } = await oneEvent(`http://127.0.0.1:${port}/hooks`);
    const clock = testClock();
    const t0 = clock();
    const worker = testWorker(suite.app.db, clock);

    await worker.runOnce();
    const refused = await onlyDelivery(world, webhookId);
    expect(refused).to.include({ status: 'retrying', attempts: 1, last_response_code: null });
    expect(refused.last_error).to.match(/ECONNREFUSED/);
    expect(apiMs(refused.next_attempt_at!)).to.equal(t0 + 5 * SECOND);
    clock.set(t0 + 5 * SECOND);
    await worker.runOnce();
    expect(await onlyDelivery(world, webhookId)).to.include({ status: 'retrying', attempts: 2 });
  });

  it('When every attempt fails, Then it is tried 10 times on the whole schedule (none early) and then the delivery is failed', async () => {
    const target = await receiver({ status: 503 });
    const { world, webhookId } = await oneEvent(target.url);
    const clock: Clock = testClock();
    const worker = testWorker(suite.app.db, clock);
    let due = clock();
    for (let attempt = 1; attempt <= 10; attempt++) {
      if (attempt > 1) {
        clock.set(due - 100);
        await worker.runOnce();
        expect(target.received, `no attempt 100 ms before attempt ${attempt}`).to.have.length(attempt - 1);
      }
      clock.set(due);
      await worker.runOnce();
      expect(target.received, `attempt ${attempt}`).to.have.length(attempt);
      const row = await onlyDelivery(world, webhookId);
      expect(row).to.include({ attempts: attempt, last_response_code: 503 });
      if (attempt < 10) {
        expect(row.status).to.equal('retrying');
        expect(apiMs(row.next_attempt_at!) - due, `wait after attempt ${attempt}`).to.equal(SCHEDULE[attempt - 1]);
        due = apiMs(row.next_attempt_at!);
      } else {
        expect(row).to.include({ status: 'failed', next_attempt_at: null, delivered_at: null });
      }
    }
    clock.advance(7 * DAY);
    await worker.runOnce();
    expect(target.received).to.have.length(10);
    expect(new Set(target.ids()).size).to.equal(1);
  });

  it('When the receiver answers 302 to another receiver, Then the redirect is not followed and the attempt counts as failed', async () => {
    const elsewhere = await receiver();
    const target = await receiver({ status: 302, headers: { location: elsewhere.url } });
    const { world, webhookId } = await oneEvent(target.url);
    const worker = testWorker(suite.app.db, testClock());

    await worker.runOnce();
    expect(target.received).to.have.length(1);
    expect(elsewhere.received).to.deep.equal([]);
    const row = await onlyDelivery(world, webhookId);
    expect(row).to.include({ status: 'retrying', attempts: 1, last_response_code: 302 });
    expect(row.last_error).to.match(/302/);
  });

  // [host in the URL, what last_error names]; an IPv4-mapped IPv6 loopback is named as the URL parser writes it.
  for (const [host, named] of [
    ['127.0.0.1', '127.0.0.1'], ['localhost', 'localhost'], ['[::ffff:127.0.0.1]', '::ffff:7f00:1'], ['[::127.0.0.1]', '::7f00:1'], ['[2002:7f00:1::]', '2002:7f00:1::'],
  ]) {
    it(`When a subscription points at http://${host} and private targets are not allowed, Then nothing is sent, the delivery is failed naming why, and not retried`, async () => {
      const target = await receiver();
      const { world, webhookId } = await oneEvent(`http://${host}:${target.port}/hooks`);
      const clock = testClock();
      const worker = testWorker(suite.app.db, clock, { allowPrivateTargets: false });

      await worker.runOnce();
      const row = await onlyDelivery(world, webhookId);
      expect(row).to.include({ status: 'failed', attempts: 1, last_response_code: null, next_attempt_at: null, delivered_at: null });
      expect(row.last_error).to.include(named).and.match(/private/);
      clock.advance(DAY);
      await worker.runOnce();
      await testWorker(suite.app.db, clock).runOnce(); // not even a worker that allows private targets sends a failed delivery
      expect(target.received).to.deep.equal([]);
      expect(await onlyDelivery(world, webhookId)).to.deep.equal(row);
    });
  }

  it('When a subscription stored with an http URL is delivered after WEBHOOK_ALLOW_HTTP was switched off, Then nothing is sent, the delivery is failed saying why, and not retried', async () => {
    const target = await receiver();
    const { world, webhookId } = await oneEvent(target.url);
    expect(target.url).to.match(/^http:/);
    const clock = testClock();
    const worker = testWorker(suite.app.db, clock, { allowHttp: false });

    await worker.runOnce();
    const row = await onlyDelivery(world, webhookId);
    expect(row).to.include({ status: 'failed', attempts: 1, last_response_code: null, next_attempt_at: null, delivered_at: null, last_error: 'The url must use https; not delivered.' });
    clock.advance(DAY);
    await worker.runOnce();
    await testWorker(suite.app.db, clock).runOnce(); // nor does a worker that allows http send a failed delivery
    expect(target.received).to.deep.equal([]);
    expect(await onlyDelivery(world, webhookId)).to.deep.equal(row);
  });
});
