/**
 * Webhook delivery end to end: a write through the API, the outbox, the worker, a real receiver on
 * 127.0.0.1. What arrives is signed per Standard Webhooks; a rolled-back write sends nothing; the
 * secret shows in no read and no log line; the worker's heartbeat reaches the health object.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { api } from '../helpers/api.js';
import { createWorld, type World } from '../helpers/factories.js';
import { freshArticle } from '../fixtures/articles.js';
import { buc, createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';
import { receiveStock } from '../fixtures/stock.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createArticle, deliveries, isolatedApp, onlyDelivery, outboxIds, subscribe, testClock, testWorker, type Isolated } from './support.js';
import { expectApiTime } from '../fixtures/probes.js';

describe('Webhook delivery: body, signature and delivery log', () => {
  let h: Isolated;
  let receiver: Receiver;
  let world: World;

  before(async () => {
    h = await isolatedApp();
    receiver = await startReceiver();
    world = await createWorld(h.app, h.db);
  });

  after(async () => {
    await receiver?.close();
    await h?.close();
  });

  it('When an article is created with a subscription to a receiver, Then the receiver gets one signed article.created and the log says delivered', async () => {
    const { id: webhookId, secret } = await subscribe(world, receiver.url, ['article.created']);
    const clock = testClock();
    const article = await createArticle(world);
    const shown = (await world.as('admin').get(`/api/articles/${article.id}`).expect(200)).body.data;
    const [eventId] = await outboxIds(h.db, world.client.id);

    await testWorker(h.db, clock).runOnce();

    expect(receiver.received).to.have.length(1);
    const [request] = receiver.received;
    expect(request!.method).to.equal('POST');
    expect(request!.headers['content-type']).to.match(/^application\/json\b/);
    expect(request!.headers['webhook-id']).to.equal(eventId);
    expect(request!.headers['webhook-timestamp']).to.equal(String(Math.floor(clock() / 1000)));
    expect(request!.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
    const body = JSON.parse(request!.body);
    expect(Object.keys(body)).to.deep.equal(['id', 'type', 'timestamp', 'company_id', 'data']);
    expect(body).to.deep.include({ id: eventId, type: 'article.created', company_id: world.client.id });
    expectApiTime(body.timestamp);
    expect(Date.parse(body.timestamp)).to.be.within(clock() - 1000, Date.now() + 1000);
    expect(body.data).to.deep.equal(shown);
    expect(body.data).to.deep.equal(article);

    const headers = {
      'webhook-id': String(request!.headers['webhook-id']),
      'webhook-timestamp': String(request!.headers['webhook-timestamp']),
      'webhook-signature': String(request!.headers['webhook-signature']),
    };
    expect(new Webhook(secret).verify(request!.body, headers)).to.deep.equal(body);
    const tampered = Buffer.from(request!.body, 'utf8');
    tampered[tampered.length - 2] = tampered[tampered.length - 2]! ^ 0x01;
    expect(() => new Webhook(secret).verify(tampered.toString('utf8'), headers)).to.throw(/signature/i);

    const delivery = await onlyDelivery(world, webhookId);
    expect(delivery).to.include({ event_id: eventId, event_type: 'article.created', status: 'delivered', attempts: 1, last_response_code: 200, last_error: null, next_attempt_at: null });
    expect(delivery.delivered_at).to.be.a('string');
  });
});

describe('Webhook delivery: a rolled-back write sends nothing', () => {
  let h: Isolated;
  let receiver: Receiver;
  let world: World;

  before(async () => {
    h = await isolatedApp();
    receiver = await startReceiver();
    world = await createWorld(h.app, h.db);
  });

  after(async () => {
    await receiver?.close();
    await h?.close();
  });

  it('When an article create fails on a duplicate code (422), Then no event is recorded and nothing reaches the receiver', async () => {
    const { id: webhookId } = await subscribe(world, receiver.url);
    const before = await outboxIds(h.db, world.client.id);
    const res = await world.as('admin').post('/api/articles').send({ article_code: world.articles.client.code, description: 'Duplicate', um3pl: 'BUC' }).expect(422);
    expect(res.body.errors).to.have.property('article_code');

    expect(await outboxIds(h.db, world.client.id)).to.deep.equal(before);
    await testWorker(h.db, testClock()).runOnce();
    expect(receiver.received).to.deep.equal([]);
    expect(await deliveries(world, webhookId)).to.deep.equal([]);
  });

  it('When a sales-order delivery records stock.changed for one line and then fails on a short line (422), Then its events are rolled back and none is sent', async () => {
    const clock = testClock();
    const worker = testWorker(h.db, clock);
    const stocked = await freshArticle(world, world.client.id);
    const short = await freshArticle(world, world.client.id);
    await receiveStock(world, stocked, 5);
    const order = await createSalesOrder(world, [buc(stocked, 2), buc(short, 1)]);
    await moveThrough(world, order.id, ['picking', 'picked']);
    await worker.runOnce(); // sends everything the set-up recorded
    const sent = receiver.received.length;
    const before = await outboxIds(h.db, world.client.id);

    await world.as('operator').post(`/api/sales-orders/${order.id}/status`).send({ status: 'delivered' }).expect(422);

    expect(await outboxIds(h.db, world.client.id)).to.deep.equal(before);
    await worker.runOnce();
    expect(receiver.received).to.have.length(sent);
  });
});

describe('Webhook delivery: the secret is never shown again nor logged', () => {
  const lines: string[] = [];
  const capture = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  let h: Isolated;
  let receiver: Receiver;
  let world: World;

  before(async () => {
    h = await isolatedApp({ logger: capture });
    receiver = await startReceiver();
    world = await createWorld(h.app, h.db);
  });

  after(async () => {
    await receiver?.close();
    await h?.close();
  });

  it('When a subscription is created, read, listed and delivered to (ok and failing), Then its secret is in no read and no log line of the app or the worker', async () => {
    const { id: webhookId, secret } = await subscribe(world, receiver.url);
    const key = secret.slice('whsec_'.length);
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
    const reads = [
      await world.as('admin').get('/api/webhooks').expect(200),
      await world.as('admin').get(`/api/webhooks/${webhookId}`).expect(200),
      await world.as('providerAdmin').get('/api/webhooks').expect(200),
      await world.as('admin').put(`/api/webhooks/${webhookId}`).send({ description: 'renamed' }).expect(200),
    ];
    const clock = testClock();
    const worker = testWorker(h.db, clock, { logger: capture });
    receiver.script({ status: 500, body: 'broken' });
    await createArticle(world);
    await worker.runOnce();
    await createArticle(world);
    await world.as('admin').post(`/api/webhooks/${webhookId}/ping`).expect(202);
    clock.advance(1000); // the ping is queued at the real time
    await worker.runOnce();
    reads.push(await world.as('admin').get(`/api/webhooks/${webhookId}/deliveries`).expect(200));

    expect(receiver.received.length).to.be.at.least(3);
    for (const res of reads) {
      expect(res.text).to.not.include(key);
      for (const row of [res.body.data].flat()) expect(row).to.not.have.property('secret');
    }
    expect(lines.length).to.be.greaterThan(5);
    expect(lines.filter((line) => line.includes('webhook attempt'))).to.have.length.at.least(3);
    for (const line of lines) expect(line).to.not.include(key);
  });
});

describe('Webhook delivery: the worker heartbeat', () => {
  let h: Isolated;

  before(async () => {
    h = await isolatedApp();
  });

  after(async () => {
    await h?.close();
  });

  it('When the worker has run once, Then GET /health shows the webhook-worker heartbeat ok', async () => {
    const before = (await api(h.app).get('/health').expect(200)).body;
    expect(before.heartbeats.items.map((i: { name: string }) => i.name)).to.not.include('webhook-worker');

    await testWorker(h.db, testClock()).runOnce();

    const health = (await api(h.app).get('/health').expect(200)).body;
    const item = health.heartbeats.items.find((i: { name: string }) => i.name === 'webhook-worker');
    expect(item).to.include({ name: 'webhook-worker', ok: true });
    expect(item.last_ping_at_ms).to.be.within(Date.now() - 60_000, Date.now() + 1000);
    expect(health.heartbeats.no_records).to.equal(false);
  });
});
