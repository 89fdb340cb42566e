/**
 * Events reach subscriptions: a write records an outbox event; one round of the worker makes one
 * delivery per active subscription that wants it (the client's own, its provider's) and sends it
 * signed. The worker's send is a stub: nothing leaves the process.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { drain } from '../helpers/webhooks.js';
import { createWebhookWorker, type WebhookWorker } from '../../src/components/webhooks/webhooks.worker.js';
import { createWorld, unique, type Actor, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { API_TIME as TIME, outboxRows } from '../fixtures/probes.js';
import { setModules } from '../../db/seeds/builders.js';


interface Sent {
  url: string;
  body: string;
  headers: Record<string, string>;
}

interface Hook {
  id: number;
  url: string;
  secret: string;
}

describe('Webhook events reach subscriptions', () => {
  let h: Harness;
  let world: World;
  let other: World;
  let worker: WebhookWorker;
  const sent: Sent[] = [];
  const hooks: Record<string, Hook> = {};

  async function subscribe(name: string, w: World, actor: Actor, events: string[], active = true): Promise<void> {
    const url = `http://127.0.0.1:9/hooks/${name}-${unique()}`;
    const res = await w.as(actor).post('/api/webhooks').send({ url, events, active }).expect(201);
    hooks[name] = { id: res.body.data.id, url, secret: res.body.data.secret };
  }

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
    worker = createWebhookWorker({
      db: h.db, logger: pino({ level: 'silent' }), timeoutMs: 1000, allowPrivateTargets: true, allowHttp: true, pollMs: 1000,
      send: async (url, body, headers) => {
        sent.push({ url, body, headers });
        return { status: 200 };
      },
    });
    // Whatever earlier suites left undispatched goes out before these subscriptions exist.
    await drain(worker);
    await subscribe('all', world, 'admin', ['*']);
    await subscribe('created', world, 'admin', ['article.created']);
    await subscribe('stock', world, 'admin', ['stock.changed']);
    await subscribe('inactive', world, 'admin', ['article.created'], false);
    await subscribe('provider', world, 'providerAdmin', ['article.created']);
    await subscribe('inactiveProvider', world, 'providerAdmin', ['*'], false);
    await subscribe('otherClient', world, 'otherClientAdmin', ['*']);
    await subscribe('otherTenant', other, 'admin', ['*']);
  });

  /** Creates an article as `actor`; answers the article and the id of its (undispatched) event. */
  async function recordArticle(actor: Actor): Promise<{ article: Record<string, unknown>; eventId: string; company: number }> {
    const res = await world.as(actor).post('/api/articles').send({ article_code: unique('WH-'), description: 'Webhook test', um3pl: 'BUC' }).expect(201);
    const article = res.body.data;
    const events = await outboxRows(h.db, { companyId: article.client_3pl_id, type: 'article.created' });
    const mine = events.filter((e) => e.data.id === article.id);
    expect(mine, 'one article.created event in the outbox').to.have.length(1);
    expect(mine[0]!.dispatched_at).to.equal(null);
    return { article, eventId: mine[0]!.event_id, company: article.client_3pl_id };
  }

  /** Creates an article as `actor` and runs one round of the worker. */
  async function articleCreated(actor: Actor): Promise<{ article: Record<string, unknown>; eventId: string; company: number }> {
    const created = await recordArticle(actor);
    await drain(worker);
    return created;
  }

  const namesOf = (webhookIds: number[]): string[] =>
    Object.entries(hooks).filter(([, hook]) => webhookIds.includes(hook.id)).map(([name]) => name).sort();

  async function deliveriesOf(eventId: string): Promise<Array<Record<string, unknown>>> {
    return h.db('webhook_deliveries').where('event_id', eventId).orderBy('id');
  }

  it("When an article is created in the client, Then the client's matching active subscriptions and the provider's get one delivery each", async () => {
    const { eventId } = await articleCreated('operator');
    const rows = await deliveriesOf(eventId);
    expect(namesOf(rows.map((r) => r.webhook_id as number))).to.deep.equal(['all', 'created', 'provider']);
    expect(rows).to.have.length(3);
    for (const row of rows) expect(row).to.include({ event_type: 'article.created', status: 'delivered', attempts: 1, last_response_code: 200, last_error: null });
    const [event] = await outboxRows(h.db, { eventIds: [eventId] });
    expect(event!.dispatched_at).not.to.equal(null);
  });

  it('When the worker sends the event, Then each body is the event and its signature verifies with the subscription secret', async () => {
    const { article, eventId, company } = await articleCreated('admin');
    const calls = sent.filter((s) => s.headers['webhook-id'] === eventId);
    expect(calls.map((c) => c.url).sort()).to.deep.equal([hooks.all!.url, hooks.created!.url, hooks.provider!.url].sort());
    const bodies = new Set(calls.map((c) => c.body));
    expect(bodies.size, 'the same body to every subscription').to.equal(1);
    for (const call of calls) {
      const hook = Object.values(hooks).find((x) => x.url === call.url)!;
      const verified = new Webhook(hook.secret).verify(call.body, call.headers) as Record<string, unknown>;
      expect(verified).to.deep.equal(JSON.parse(call.body));
      expect(() => new Webhook(hooks.otherClient!.secret).verify(call.body, call.headers), 'another secret').to.throw();
      const payload = JSON.parse(call.body);
      expect(Object.keys(payload)).to.deep.equal(['id', 'type', 'timestamp', 'company_id', 'data']);
      expect(payload).to.deep.include({ id: eventId, type: 'article.created', company_id: company, data: article });
      expect(payload.timestamp).to.match(TIME);
      expect(Number(call.headers['webhook-timestamp'])).to.be.closeTo(Date.now() / 1000, 60);
    }
    const stored = await deliveriesOf(eventId);
    for (const row of stored) expect(row.payload).to.equal(calls[0]!.body);
  });

  it('When the worker runs again, Then an event already fanned out gets no new delivery and is not sent again', async () => {
    const { eventId } = await articleCreated('operator');
    const before = sent.filter((s) => s.headers['webhook-id'] === eventId).length;
    await worker.runOnce();
    expect(await deliveriesOf(eventId)).to.have.length(3);
    expect(sent.filter((s) => s.headers['webhook-id'] === eventId)).to.have.length(before);
  });

  it("When an article is created in the other client, Then only that client's subscription and the provider's get it", async () => {
    const { eventId, company } = await articleCreated('otherClientAdmin');
    expect(company).to.equal(world.otherClient.id);
    const rows = await deliveriesOf(eventId);
    expect(namesOf(rows.map((r) => r.webhook_id as number))).to.deep.equal(['otherClient', 'provider']);
    const payload = JSON.parse(rows[0]!.payload as string);
    expect(payload.company_id).to.equal(world.otherClient.id);
  });

  it('When events of both clients go out in one round, Then each reaches only its own client and the provider', async () => {
    const mine = await recordArticle('operator');
    const theirs = await recordArticle('otherClientAdmin');
    await worker.runOnce();
    expect(namesOf((await deliveriesOf(mine.eventId)).map((r) => r.webhook_id as number))).to.deep.equal(['all', 'created', 'provider']);
    expect(namesOf((await deliveriesOf(theirs.eventId)).map((r) => r.webhook_id as number))).to.deep.equal(['otherClient', 'provider']);
  });

  it('When the provider admin creates an article for the client, Then the event names the client and reaches the same subscriptions', async () => {
    const res = await world.as('providerAdmin', world.client.id).post('/api/articles')
      .send({ article_code: unique('WHP-'), description: 'By the provider', um3pl: 'BUC' }).expect(201);
    await worker.runOnce();
    const events = await outboxRows(h.db, { type: 'article.created' });
    const event = events.find((e) => e.data.id === res.body.data.id)!;
    expect(event.company_id).to.equal(world.client.id);
    expect(namesOf((await deliveriesOf(event.event_id)).map((r) => r.webhook_id as number))).to.deep.equal(['all', 'created', 'provider']);
  });

  it('When a subscription is switched off before the worker runs, Then it gets no delivery; switched on again, it gets the next event', async () => {
    await world.as('admin').put(`/api/webhooks/${hooks.created!.id}`).send({ active: false }).expect(200);
    const off = await articleCreated('operator');
    expect(namesOf((await deliveriesOf(off.eventId)).map((r) => r.webhook_id as number))).to.deep.equal(['all', 'provider']);
    await world.as('admin').put(`/api/webhooks/${hooks.created!.id}`).send({ active: true }).expect(200);
    const on = await articleCreated('operator');
    expect(namesOf((await deliveriesOf(on.eventId)).map((r) => r.webhook_id as number))).to.deep.equal(['all', 'created', 'provider']);
  });

  /** One round of the worker while `modules` are off for the company, every module on again after it. */
  async function roundWithModulesOff(companyId: number, modules: Parameters<typeof setModules>[2]): Promise<void> {
    await setModules(h.db, companyId, modules);
    try {
      await worker.runOnce();
    } finally {
      await setModules(h.db, companyId, []);
    }
  }

  it("When the client's module of the event is off as it is fanned out, Then no subscription gets it (the client's nor the provider's), as REST and the feed show none; on again, the next event is delivered", async () => {
    const off = await recordArticle('operator');
    await roundWithModulesOff(world.client.id, ['articles']);
    expect(await deliveriesOf(off.eventId)).to.deep.equal([]);
    const [event] = await outboxRows(h.db, { eventIds: [off.eventId] });
    expect(event!.dispatched_at, 'fanned out to nobody, not left waiting').not.to.equal(null);
    const on = await articleCreated('operator');
    expect(namesOf((await deliveriesOf(on.eventId)).map((r) => r.webhook_id as number))).to.deep.equal(['all', 'created', 'provider']);
  });

  it("When the webhooks module of a subscription's company is off, Then that company's subscriptions get nothing and the others still do", async () => {
    const created = await recordArticle('operator');
    await roundWithModulesOff(world.provider.id, ['webhooks']);
    expect(namesOf((await deliveriesOf(created.eventId)).map((r) => r.webhook_id as number))).to.deep.equal(['all', 'created']);
  });

  it("When the subscription's own company has the event's content module or its api module off, Then that company's subscriptions get nothing (what it could not read through REST) and the client's still do", async () => {
    for (const off of [['articles'], ['api']] as const) {
      const created = await recordArticle('operator');
      await roundWithModulesOff(world.provider.id, [...off]);
      expect(namesOf((await deliveriesOf(created.eventId)).map((r) => r.webhook_id as number)), off[0]).to.deep.equal(['all', 'created']);
    }
    const created = await recordArticle('operator');
    await roundWithModulesOff(world.client.id, ['api']);
    expect(namesOf((await deliveriesOf(created.eventId)).map((r) => r.webhook_id as number)), "the client's api off").to.deep.equal(['provider']);
  });

  it('When a delivered event is redelivered, Then the worker sends it again with the same webhook-id and body', async () => {
    const { eventId } = await articleCreated('operator');
    const first = (await deliveriesOf(eventId)).find((r) => r.webhook_id === hooks.all!.id)!;
    const copy = await world.as('admin').post(`/api/webhooks/${hooks.all!.id}/deliveries/${first.id}/redeliver`).expect(202);
    expect(copy.body.data).to.include({ event_id: eventId, status: 'pending' });
    await worker.runOnce();
    const toAll = sent.filter((s) => s.headers['webhook-id'] === eventId && s.url === hooks.all!.url);
    expect(toAll).to.have.length(2);
    expect(toAll[1]!.body).to.equal(toAll[0]!.body);
    expect(new Webhook(hooks.all!.secret).verify(toAll[1]!.body, toAll[1]!.headers)).to.deep.equal(JSON.parse(toAll[0]!.body));
  });
});
