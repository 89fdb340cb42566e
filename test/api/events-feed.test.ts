/** GET /api/events: the outbox read as a feed, in the order the sequencer gives. */
import { expect } from 'chai';
import { pino } from 'pino';
import { createFanOut } from '../../src/components/webhooks/webhooks.fan-out.js';
import { nowDb, toApiTime } from '../../src/kernel/time.js';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, isolatedHarness, type Harness, type Isolated } from '../helpers/harness.js';
import { makeArticle } from '../fixtures/articles.js';
import { createOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { readFeed } from '../fixtures/events.js';
import { outboxEvents } from '../fixtures/probes.js';
import { insertStoredEvent } from '../fixtures/faults.js';
import { eventId } from '../../src/kernel/ids.js';
import { unchecked } from '../helpers/api.js';

interface FeedEvent {
  id: string;
  type: string;
  timestamp: string;
  company_id: number;
  data: Record<string, unknown>;
}

/** Every event after `after` that `read` answers, following next_cursor page by page. */
async function readAll(read: (after: string | undefined) => Promise<{ data: FeedEvent[]; meta: { next_cursor: string | null } }>, after?: string): Promise<FeedEvent[]> {
  const all: FeedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await read(cursor);
    all.push(...page.data);
    if (page.meta.next_cursor === null) return all;
    cursor = page.meta.next_cursor;
  }
}

describe('GET /api/events', () => {
  let h: Harness;
  let world: World;
  let other: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    other = await createWorld(h.app, h.db);
  });

  const feed = (w: World, actor: 'viewer' | 'providerAdmin' | 'otherClientAdmin', query: string) =>
    w.as(actor).get(`/api/events${query}`);

  it('When a client writes, Then its events come in the order they committed, each once, following next_cursor page by page', async () => {
    const first = await makeArticle(world);
    await makeArticle(world);
    await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: first.id, um3pl: 'BUC', quantity_um3pl: 3 }]);
    const recorded = [
      ...(await outboxEvents(h.db, world.client.id, 'article.created')),
      ...(await outboxEvents(h.db, world.client.id, 'purchase_order.created')),
    ].map((e) => e.event_id);

    const read = async (after: string | undefined) =>
      (await feed(world, 'viewer', `?per_page=2${after ? `&after=${after}` : ''}`).expect(200)).body as { data: FeedEvent[]; meta: { next_cursor: string | null } };
    const events = await readAll(read);
    expect(events.map((e) => e.id)).to.have.members(recorded);
    expect(new Set(events.map((e) => e.id)).size).to.equal(events.length);
    expect(events.map((e) => e.type)).to.deep.equal(['article.created', 'article.created', 'purchase_order.created']);
    for (const e of events) expect(e.company_id).to.equal(world.client.id);

    const again = await readAll(read);
    expect(again, 'the order never changes').to.deep.equal(events);
    const tail = await feed(world, 'viewer', `?after=${events[events.length - 1]!.id}`).expect(200);
    expect(tail.body).to.deep.equal({ data: [], meta: { next_cursor: null } });
    const pages = [await read(undefined), await read(events[1]!.id)];
    expect(pages[0].meta.next_cursor, 'more follow a full page').to.equal(events[1]!.id);
    expect(pages[1].data.map((e) => e.id)).to.deep.equal([events[2]!.id]);
    expect(pages[1].meta.next_cursor, 'nothing follows yet').to.equal(null);
  });

  it('When types is given, Then only those types come; a type outside the catalogue is a 422 on types', async () => {
    const res = await feed(world, 'viewer', '?types=purchase_order.created,stock.changed').expect(200);
    expect(res.body.data.map((e: FeedEvent) => e.type)).to.deep.equal(['purchase_order.created']);
    const bad = await feed(world, 'viewer', '?types=article.deleted').expect(422);
    expect(Object.keys(bad.body.errors)).to.deep.equal(['types']);
    expect(bad.body.errors.types[0]).to.match(/^The types field must be a comma-separated list of: article.created, /);
    // `*` (a subscription's wildcard, not a type) sent unencoded, as URLSearchParams leaves it.
    for (const types of ['*', 'stock.changed,*']) {
      const wildcard = await feed(world, 'viewer', `?types=${types}`).expect(422);
      expect(wildcard.body.errors, types).to.have.keys('types');
      expect(wildcard.body.errors.types[0], types).to.match(/^The types field must be a comma-separated list of: article.created, /);
    }
  });

  it('When the provider reads in its own scope, Then it sees both clients\' events; a client sees its own only, and another tenant none', async () => {
    await makeArticle(world, world.otherClient.id);
    const provider = await readAll(async (after) => (await world.as('providerAdmin').get(`/api/events?per_page=500${after ? `&after=${after}` : ''}`).expect(200)).body);
    const companies = new Set(provider.map((e) => e.company_id));
    expect([...companies].sort()).to.deep.equal([world.client.id, world.otherClient.id].sort());
    const client = (await feed(world, 'viewer', '?per_page=500').expect(200)).body.data as FeedEvent[];
    expect(client.every((e) => e.company_id === world.client.id)).to.equal(true);
    expect(provider.filter((e) => e.company_id === world.client.id)).to.deep.equal(client);
    const stranger = (await other.as('providerAdmin').get('/api/events?per_page=500').expect(200)).body.data as FeedEvent[];
    expect(stranger.some((e) => e.company_id === world.client.id || e.company_id === world.otherClient.id)).to.equal(false);
  });

  it("When after names an event of another company or no event at all, Then it is a 422 on after saying where to start", async () => {
    const theirs = (await feed(world, 'providerAdmin', '?per_page=500').expect(200)).body.data.find((e: FeedEvent) => e.company_id === world.otherClient.id);
    const res = await feed(world, 'viewer', `?after=${theirs.id}`).expect(422);
    expect(res.body.errors.after[0]).to.match(/^No event evt_\S+ in this feed: .*leave after out to start from the oldest event kept\.$/);
    await feed(world, 'viewer', '?after=evt_nothing').expect(422);
    await feed(world, 'viewer', '?per_page=501').expect(422);
  });

  it("When a client's module is off, Then the feed leaves out the event types of that module for that client only, and shows them again once it is on", async () => {
    const theirs = await makeArticle(world, world.otherClient.id);
    const modules = () => h.db('company_modules').where({ company_id: world.client.id, module: 'articles' });
    await modules().update({ active: false });
    try {
      const res = await world.as('providerAdmin').get('/api/events?per_page=500').expect(200);
      const mine = (res.body.data as FeedEvent[]).filter((e) => e.company_id === world.client.id);
      expect(mine.map((e) => e.type)).to.deep.equal(['purchase_order.created']);
      // The provider's other client keeps its articles module: its article events stay in the same page.
      const others = (res.body.data as FeedEvent[]).filter((e) => e.company_id === world.otherClient.id && e.type === 'article.created');
      expect(others.map((e) => e.data.id)).to.include(theirs.id);
    } finally {
      await modules().update({ active: true });
    }
    const back = await world.as('providerAdmin').get('/api/events?per_page=500').expect(200);
    expect((back.body.data as FeedEvent[]).some((e) => e.company_id === world.client.id && e.type === 'article.created')).to.equal(true);
  });

  it("When a client's stock module is off while a reception is written and a reader reads the feed to its end, Then once it is on again the reception's stock.changed stands at its place behind the reader's cursor, reading on from the cursor never returns it, and GET /api/stock with updated_since does", async () => {
    // The documented exception (docs/guide/sync.md, "A module switched off and on again"): the feed
    // hides by the modules as they are when it is read, and an event keeps the place it was given.
    const article = await makeArticle(world);
    const po = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 5 }]);
    const stock = () => h.db('company_modules').where({ company_id: world.client.id, module: 'stock' });
    const viewer = world.as('viewer');
    const offSince = nowDb();
    let cursor: string;
    await stock().update({ active: false });
    try {
      await receive(world.as('operator'), po.id, world.warehouses[0]!, [[po.items[0]!.id, 5]]);
      const read = await readFeed(viewer);
      expect(read.filter((e) => e.type === 'stock.changed' && e.data.article_id === article.id)).to.deep.equal([]);
      expect(read.slice(-2).map((e) => e.type), "the reception's other events").to.deep.equal(['purchase_order.updated', 'reception.created']);
      cursor = read[read.length - 1]!.id;
    } finally {
      await stock().update({ active: true });
    }
    expect(await readFeed(viewer, cursor), 'nothing follows the cursor').to.deep.equal([]);
    const all = await readFeed(viewer);
    const place = all.findIndex((e) => e.type === 'stock.changed' && e.data.article_id === article.id);
    expect(place, 'in the feed again').to.be.at.least(0);
    expect(all.slice(place).map((e) => e.type), 'at its place in its write, behind the cursor').to.deep.equal(['stock.changed', 'purchase_order.updated', 'reception.created']);
    expect(all[all.length - 1]!.id).to.equal(cursor);
    const since = encodeURIComponent(toApiTime(offSince));
    const rows = (await viewer.get(`/api/stock?article_id=${article.id}&updated_since=${since}`).expect(200)).body.data as Array<{ quantity: number }>;
    expect(rows.map((r) => r.quantity), 'the catch-up the guide gives').to.deep.equal([5]);
  });

  it("When the provider's own module is off, Then its feed leaves out that module's event types of every client (as REST refuses it their data), and its clients' feeds keep them", async () => {
    const modules = () => h.db('company_modules').where({ company_id: world.provider.id, module: 'articles' });
    await modules().update({ active: false });
    try {
      const res = await world.as('providerAdmin').get('/api/events?per_page=500').expect(200);
      const types = new Set((res.body.data as FeedEvent[]).map((e) => e.type));
      expect([...types].filter((t) => t.startsWith('article.'))).to.deep.equal([]);
      expect(types.has('purchase_order.created')).to.equal(true);
      const own = await world.as('viewer').get('/api/events?per_page=500').expect(200);
      expect((own.body.data as FeedEvent[]).some((e) => e.type === 'article.created')).to.equal(true);
    } finally {
      await modules().update({ active: true });
    }
  });
});

describe('GET /api/events: the bodies webhooks deliver', () => {
  let h: Isolated;

  before(async () => {
    h = await isolatedHarness();
  });
  after(async () => h.close());

  it('When events are fanned out to a subscription, Then each feed item is exactly the body of its delivery', async () => {
    const world = await createWorld(h.app, h.db);
    await world.as('admin').post('/api/webhooks').send({ url: 'http://127.0.0.1:9/hooks', events: ['*'] }).expect(201);
    const article = await makeArticle(world);
    await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 2 }]);
    await createFanOut({ db: h.db, logger: pino({ level: 'silent' }), now: () => nowDb() })();

    const res = await world.as('viewer').get('/api/events').expect(200);
    const events = res.body.data as FeedEvent[];
    expect(events.map((e) => e.type)).to.deep.equal(['article.created', 'purchase_order.created']);
    const payloads: Array<{ event_id: string; payload: string }> = await h.db('webhook_deliveries').select('event_id', 'payload');
    const byEvent = new Map(payloads.map((p) => [p.event_id, JSON.parse(p.payload)]));
    for (const event of events) expect(event, event.type).to.deep.equal(byEvent.get(event.id));
    // The same bytes, not only the same values: the page carries each signed body as it was sent.
    for (const { event_id, payload } of payloads) expect(res.text, event_id).to.include(payload);
  });

  it('When an event\'s stored data was cut short (written as no service writes it), Then the feed answers 500, never a 200 that is not JSON', async () => {
    const world = await createWorld(h.app, h.db);
    const broken = eventId();
    await insertStoredEvent(h.db, { event_id: broken, company_id: world.client.id, type: 'article.created', data: '{"id": 1, "article_code": "ART', occurred_at: nowDb() });
    // A 500 is outside the document (every one is a defect), so this request is not contract-checked.
    const res = await unchecked(h.app, { token: world.users.viewer.token, company: world.client.id }).get('/api/events').expect(500).expect('Content-Type', /^application\/json/);
    expect(res.body.message).to.be.a('string');
  });
});
