/** The delivery log of a subscription, redelivery and the ping. */
import { expect } from 'chai';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { drain } from '../helpers/webhooks.js';
import { createWebhookWorker } from '../../src/components/webhooks/webhooks.worker.js';
import { nowDb, toApiTime } from '../../src/kernel/time.js';
import { insertReturningId } from '../../src/platform/db/database.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { API_TIME as TIME } from '../fixtures/probes.js';

const DELIVERY_KEYS = ['id', 'event_id', 'event_type', 'status', 'attempts', 'last_response_code', 'last_error', 'next_attempt_at', 'delivered_at', 'created_at'];

describe('Webhook deliveries', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  /** A subscription of the client to a local URL nothing listens on. */
  async function subscribe(actor: 'admin' | 'otherClientAdmin' = 'admin'): Promise<{ id: number; url: string; secret: string }> {
    const url = `http://127.0.0.1:9/hooks/${unique()}`;
    const res = await world.as(actor).post('/api/webhooks').send({ url, events: ['*'] }).expect(201);
    return { id: res.body.data.id, url, secret: res.body.data.secret };
  }

  const stored = (id: number): Promise<Record<string, unknown>> => h.db('webhook_deliveries').where('id', id).first();

  /** A delivery row written as the worker would leave it. */
  async function insertDelivery(webhookId: number, fields: Record<string, unknown> = {}): Promise<number> {
    const eventId = `evt_${unique()}${unique()}`;
    const now = nowDb();
    const row = {
      webhook_id: webhookId, event_id: eventId, event_type: 'article.created', status: 'pending', attempts: 0,
      payload: JSON.stringify({ id: eventId, type: 'article.created', timestamp: toApiTime(now), company_id: world.client.id, data: { id: 1, note: unique() } }),
      next_attempt_at: now, created_at: now, updated_at: now, ...fields,
    };
    return insertReturningId(h.db, 'webhook_deliveries', row);
  }

  describe('POST /api/webhooks/{id}/ping', () => {
    it('When a ping is sent, Then it answers 202 with a pending webhook.ping delivery whose stored payload is the test event', async () => {
      const hook = await subscribe();
      const res = await world.as('admin').post(`/api/webhooks/${hook.id}/ping`).expect(202);
      const delivery = res.body.data;
      expect(Object.keys(delivery).sort()).to.deep.equal([...DELIVERY_KEYS].sort());
      expect(delivery).to.deep.include({ event_type: 'webhook.ping', status: 'pending', attempts: 0, last_response_code: null, last_error: null, delivered_at: null });
      expect(delivery.event_id).to.match(/^evt_[0-9A-Z]{26}$/);
      expect(delivery.created_at).to.match(TIME);
      expect(delivery.next_attempt_at).to.match(TIME);
      const row = await stored(delivery.id);
      expect(row).to.include({ webhook_id: hook.id, event_id: delivery.event_id, event_type: 'webhook.ping', status: 'pending' });
      const payload = JSON.parse(row.payload as string);
      expect(payload).to.deep.equal({ id: delivery.event_id, type: 'webhook.ping', timestamp: payload.timestamp, company_id: world.client.id, data: { webhook_id: hook.id } });
      expect(payload.timestamp).to.match(TIME);
      const list = await world.as('admin').get(`/api/webhooks/${hook.id}/deliveries`).expect(200);
      expect(list.body.data).to.deep.equal([delivery]);
    });

    it('When a switched-off subscription is pinged, Then it answers 422 on active saying it is off and how to switch it on, and queues nothing; switched on, it is pinged', async () => {
      const hook = await subscribe();
      const off = (id: number) => ({
        message: `Webhook ${id} is switched off, so it cannot be pinged. Switch it on with PUT /api/webhooks/${id} {"active": true}, then ping it again.`,
      });
      await world.as('admin').put(`/api/webhooks/${hook.id}`).send({ active: false }).expect(200);
      await world.as('admin').post(`/api/webhooks/${hook.id}/ping`).expect(422, { ...off(hook.id), errors: { active: [off(hook.id).message] } });
      // Switched off by the server (410 Gone, or failing for days): the same answer.
      await h.db('webhooks').where('id', hook.id).update({ disabled_reason: 'The endpoint answered 410 Gone at 2026-11-21T10:00:00.000000Z.' });
      await world.as('admin').post(`/api/webhooks/${hook.id}/ping`).expect(422, { ...off(hook.id), errors: { active: [off(hook.id).message] } });
      expect(await h.db('webhook_deliveries').where('webhook_id', hook.id)).to.deep.equal([]);

      await world.as('admin').put(`/api/webhooks/${hook.id}`).send({ active: true }).expect(200);
      const ping = await world.as('admin').post(`/api/webhooks/${hook.id}/ping`).expect(202);
      expect(ping.body.data).to.include({ event_type: 'webhook.ping', status: 'pending' });
    });

    it('When two pings are sent, Then each is a new event', async () => {
      const hook = await subscribe();
      const a = (await world.as('admin').post(`/api/webhooks/${hook.id}/ping`).expect(202)).body.data;
      const b = (await world.as('admin').post(`/api/webhooks/${hook.id}/ping`).expect(202)).body.data;
      expect(b.id).not.to.equal(a.id);
      expect(b.event_id).not.to.equal(a.event_id);
    });
  });

  describe('GET /api/webhooks/{id}/deliveries', () => {
    it('When the log is read, Then rows come newest first with every field, and the status filter keeps only that status', async () => {
      const hook = await subscribe();
      const t = '2026-11-21 10:00:00.123456';
      const pending = await insertDelivery(hook.id);
      const delivered = await insertDelivery(hook.id, { status: 'delivered', attempts: 1, last_response_code: 204, next_attempt_at: null, delivered_at: t });
      const retrying = await insertDelivery(hook.id, { status: 'retrying', attempts: 3, last_response_code: 503, last_error: 'The endpoint answered 503.', next_attempt_at: t });
      const failed = await insertDelivery(hook.id, { status: 'failed', attempts: 10, last_response_code: null, last_error: 'connect ECONNREFUSED 127.0.0.1:9', next_attempt_at: null });
      const res = await world.as('admin').get(`/api/webhooks/${hook.id}/deliveries`).expect(200);
      expect(res.body.data.map((d: { id: number }) => d.id)).to.deep.equal([failed, retrying, delivered, pending]);
      expect(res.body.meta).to.include({ total: 4, current_page: 1 });
      for (const d of res.body.data) expect(Object.keys(d).sort()).to.deep.equal([...DELIVERY_KEYS].sort());
      const byId = new Map(res.body.data.map((d: { id: number }) => [d.id, d]));
      expect(byId.get(delivered)).to.deep.include({ status: 'delivered', attempts: 1, last_response_code: 204, last_error: null, next_attempt_at: null, delivered_at: '2026-11-21T10:00:00.123456Z' });
      expect(byId.get(retrying)).to.deep.include({ status: 'retrying', attempts: 3, last_response_code: 503, last_error: 'The endpoint answered 503.', next_attempt_at: '2026-11-21T10:00:00.123456Z', delivered_at: null });
      expect(byId.get(failed)).to.deep.include({ status: 'failed', attempts: 10, last_response_code: null, last_error: 'connect ECONNREFUSED 127.0.0.1:9', next_attempt_at: null });
      const eventId = (await stored(failed)).event_id;
      expect(byId.get(failed)).to.deep.include({ event_id: eventId, event_type: 'article.created' });
      for (const [status, id] of [['pending', pending], ['delivered', delivered], ['retrying', retrying], ['failed', failed]] as const) {
        const only = await world.as('admin').get(`/api/webhooks/${hook.id}/deliveries?status=${status}`).expect(200);
        expect(only.body.data.map((d: { id: number }) => d.id), status).to.deep.equal([id]);
        expect(only.body.meta.total).to.equal(1);
      }
      const bad = await world.as('admin').get(`/api/webhooks/${hook.id}/deliveries?status=sent`).expect(422);
      expect(bad.body.errors).to.deep.equal({ status: ['The status field must be one of: pending, retrying, delivered, failed.'] });
    });

    it('When the log is paged, Then each page holds the next rows, and other subscriptions are not listed', async () => {
      const hook = await subscribe();
      const neighbour = await subscribe();
      await insertDelivery(neighbour.id);
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push(await insertDelivery(hook.id));
      const newest = [...ids].reverse();
      const page1 = await world.as('admin').get(`/api/webhooks/${hook.id}/deliveries?per_page=2`).expect(200);
      expect(page1.body.data.map((d: { id: number }) => d.id)).to.deep.equal(newest.slice(0, 2));
      expect(page1.body.meta).to.include({ total: 5, per_page: 2, last_page: 3, from: 1, to: 2 });
      const page3 = await world.as('admin').get(`/api/webhooks/${hook.id}/deliveries?per_page=2&page=3`).expect(200);
      expect(page3.body.data.map((d: { id: number }) => d.id)).to.deep.equal(newest.slice(4));
    });
  });

  describe('POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver', () => {
    it('When a delivery is redelivered, Then it answers 202 with a new pending delivery of the same event and the same payload', async () => {
      const hook = await subscribe();
      const original = await insertDelivery(hook.id, { status: 'failed', attempts: 10, last_error: 'The endpoint answered 500.', last_response_code: 500, next_attempt_at: null });
      const before = await stored(original);
      const res = await world.as('admin').post(`/api/webhooks/${hook.id}/deliveries/${original}/redeliver`).expect(202);
      const copy = res.body.data;
      expect(copy.id).not.to.equal(original);
      expect(copy).to.deep.include({
        event_id: before.event_id, event_type: 'article.created', status: 'pending', attempts: 0,
        last_response_code: null, last_error: null, delivered_at: null,
      });
      expect(copy.next_attempt_at).to.match(TIME);
      const row = await stored(copy.id);
      expect(row).to.include({ webhook_id: hook.id, event_id: before.event_id, event_type: 'article.created', payload: before.payload });
      expect(await stored(original)).to.deep.equal(before);
      const list = await world.as('admin').get(`/api/webhooks/${hook.id}/deliveries`).expect(200);
      expect(list.body.data.map((d: { id: number }) => d.id)).to.deep.equal([copy.id, original]);
    });

    it('When the subscription is switched off (by its admin or by a 410), Then redeliver answers 422 on active saying so and queues nothing; switched on, it queues', async () => {
      const hook = await subscribe();
      const original = await insertDelivery(hook.id, { status: 'failed', attempts: 10, last_error: 'The endpoint answered 410.', last_response_code: 410, next_attempt_at: null });
      const message = `Webhook ${hook.id} is switched off, so nothing is sent to it. Switch it on with PUT /api/webhooks/${hook.id} {"active": true}, then redeliver again.`;
      await h.db('webhooks').where('id', hook.id).update({ active: false, disabled_reason: 'The endpoint answered 410 Gone at 2026-11-21T10:00:00.000000Z.' });
      await world.as('admin').post(`/api/webhooks/${hook.id}/deliveries/${original}/redeliver`).expect(422, { message, errors: { active: [message] } });
      expect((await h.db('webhook_deliveries').where('webhook_id', hook.id)).map((d: { id: number }) => d.id)).to.deep.equal([original]);
      await world.as('admin').put(`/api/webhooks/${hook.id}`).send({ active: true }).expect(200);
      await world.as('admin').post(`/api/webhooks/${hook.id}/deliveries/${original}/redeliver`).expect(202);
    });

    it('When a ping is redelivered, Then the copy carries the same webhook.ping event', async () => {
      const hook = await subscribe();
      const ping = (await world.as('admin').post(`/api/webhooks/${hook.id}/ping`).expect(202)).body.data;
      const copy = (await world.as('admin').post(`/api/webhooks/${hook.id}/deliveries/${ping.id}/redeliver`).expect(202)).body.data;
      expect(copy).to.include({ event_id: ping.event_id, event_type: 'webhook.ping', status: 'pending' });
      expect((await stored(copy.id)).payload).to.equal((await stored(ping.id)).payload);
    });

    it('When the delivery belongs to another subscription or does not exist, Then redeliver answers 404 and queues nothing', async () => {
      const hook = await subscribe();
      const neighbour = await subscribe();
      const foreign = await insertDelivery(neighbour.id);
      await world.as('admin').post(`/api/webhooks/${hook.id}/deliveries/${foreign}/redeliver`).expect(404, { message: `Delivery ${foreign} was not found.` });
      await world.as('admin').post(`/api/webhooks/${hook.id}/deliveries/999999999/redeliver`).expect(404, { message: 'Delivery 999999999 was not found.' });
      expect(await h.db('webhook_deliveries').where('webhook_id', hook.id)).to.deep.equal([]);
      expect(await h.db('webhook_deliveries').where('webhook_id', neighbour.id)).to.have.length(1);
    });
  });

  it("When another client's admin redelivers or reads the log, Then it answers 404", async () => {
    const hook = await subscribe();
    const delivery = await insertDelivery(hook.id);
    const agent = world.as('otherClientAdmin');
    await agent.post(`/api/webhooks/${hook.id}/deliveries/${delivery}/redeliver`).expect(404, { message: `Webhook ${hook.id} was not found.` });
    await agent.get(`/api/webhooks/${hook.id}/deliveries`).expect(404, { message: `Webhook ${hook.id} was not found.` });
    expect(await h.db('webhook_deliveries').where('webhook_id', hook.id)).to.have.length(1);
    const provider = await world.as('providerAdmin').get(`/api/webhooks/${hook.id}/deliveries`).expect(200);
    expect(provider.body.data.map((d: { id: number }) => d.id)).to.deep.equal([delivery]);
  });

  it('When the receiver answers a ping with 500 then 200, Then the log shows retrying with the next attempt, then delivered, signed alike', async () => {
    const hook = await subscribe();
    const ping = (await world.as('admin').post(`/api/webhooks/${hook.id}/ping`).expect(202)).body.data;
    const start = Math.floor(Date.now()) + 1000;
    let now = start;
    let answer = 500;
    const calls: Array<{ body: string; headers: Record<string, string> }> = [];
    const worker = createWebhookWorker({
      db: h.db, logger: pino({ level: 'silent' }), timeoutMs: 1000, allowPrivateTargets: true, allowHttp: true, pollMs: 1000,
      clock: () => now, random: () => 0.5,
      send: async (url, body, headers) => {
        if (url !== hook.url) return { status: 200 };
        calls.push({ body, headers });
        return { status: answer };
      },
    });
    await drain(worker); // what earlier suites left due goes out too (answered 200 above)
    expect(calls).to.have.length(1);
    const retrying = await world.as('admin').get(`/api/webhooks/${hook.id}/deliveries?status=retrying`).expect(200);
    expect(retrying.body.data).to.deep.equal([{
      ...ping, status: 'retrying', attempts: 1, last_response_code: 500, last_error: 'The endpoint answered 500.',
      next_attempt_at: toApiTime(nowDb(() => start + 5000)),
    }]);
    await worker.runOnce();
    expect(calls, 'not due yet').to.have.length(1);
    now = start + 6000;
    answer = 200;
    await worker.runOnce();
    expect(calls).to.have.length(2);
    const payload = (await stored(ping.id)).payload as string;
    for (const call of calls) {
      expect(call.body).to.equal(payload);
      expect(call.headers['webhook-id']).to.equal(ping.event_id);
      expect(new Webhook(hook.secret).verify(call.body, call.headers)).to.deep.equal(JSON.parse(payload));
    }
    const delivered = await world.as('admin').get(`/api/webhooks/${hook.id}/deliveries?status=delivered`).expect(200);
    expect(delivered.body.data).to.deep.equal([{
      ...ping, status: 'delivered', attempts: 2, last_response_code: 200, last_error: null, next_attempt_at: null,
      delivered_at: toApiTime(nowDb(() => start + 6000)),
    }]);
  });
});
