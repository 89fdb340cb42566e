/** The outbox writer, on a real database of the run's engine. */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createScratchDatabase, type TestDatabase } from '../../helpers/database.js';
import { migrateLatest } from '../../../db/migrations/index.js';
import { insertCompany } from '../../../db/seeds/builders.js';
import { envelopeCompanyId, eventBody, eventEnvelopeText, recordEvent } from '../../../src/platform/outbox.js';
import { eventId } from '../../../src/kernel/ids.js';
import { nowDb, toApiTime } from '../../../src/kernel/time.js';
import { inTransaction } from '../../../src/platform/db/transaction.js';
import { countEvents, outboxRows } from '../../fixtures/probes.js';

const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
const STORED_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The milliseconds in the time part (first 10 characters) of a ULID event id. */
function timeOf(id: string): number {
  return [...id.slice(4, 14)].reduce((ms, c) => ms * 32 + CROCKFORD.indexOf(c), 0);
}

describe('recordEvent (outbox)', () => {
  let database: TestDatabase;
  let db: Knex;
  let companyId: number;

  before(async () => {
    database = await createScratchDatabase();
    db = database.db;
    await migrateLatest(db);
    companyId = await insertCompany(db, { name: 'Outbox client', type: 'client' });
  });

  after(async () => {
    await database?.close();
  });

  beforeEach(async () => {
    await db('outbox_events').delete();
  });

  it('When recorded in a committed transaction, Then one row holds the evt_ ULID id, the JSON data and a 6-digit time', async () => {
    const data = { id: 7, article_code: 'ART-1', description: 'Jar "400 g" ș', nested: { list: [1, 2.5, null], flag: true } };
    const before = Date.now();
    const id = await db.transaction((tx) => recordEvent(tx, { companyId, type: 'article.created', data }));
    const after = Date.now();
    expect(id).to.match(EVENT_ID);
    const rows = await outboxRows(db);
    expect(rows).to.have.length(1);
    const row = rows[0]!;
    expect(row).to.include({ event_id: id, company_id: companyId, type: 'article.created', dispatched_at: null });
    expect(row.data).to.deep.equal(data);
    expect(String(row.occurred_at)).to.match(STORED_TIME);
    expect(timeOf(id)).to.be.within(before, after);
    const occurredMs = Date.parse(`${String(row.occurred_at).replace(' ', 'T').slice(0, 23)}Z`);
    expect(occurredMs).to.be.within(before - 1000, after + 1000); // nowDb reads the monotonic clock
  });

  it('When the transaction throws after recordEvent, Then the event is rolled back with it', async () => {
    let recorded: string | undefined;
    const failing = db.transaction(async (tx) => {
      recorded = await recordEvent(tx, { companyId, type: 'article.updated', data: { id: 1 } });
      throw new Error('the change failed');
    });
    await failing.then(
      () => expect.fail('the transaction should have failed'),
      (error: Error) => expect(error.message).to.equal('the change failed'),
    );
    expect(recorded).to.match(EVENT_ID);
    expect(await outboxRows(db, { eventIds: [recorded!] })).to.deep.equal([]);
    expect(await countEvents(db)).to.equal(0);
  });

  it('When one transaction records events of 18 MB in all (twelve 1.5 MB orders among small ones), Then all are written at its end, in order, at one time, in statements MariaDB takes (max_allowed_packet 16 MB)', async () => {
    const big = { lines: 'x'.repeat(1_500_000) };
    const recorded: string[] = [];
    await inTransaction(db, async (tx) => {
      for (let i = 0; i < 24; i++) {
        recorded.push(await recordEvent(tx, { companyId, type: 'article.created', data: i % 2 === 0 ? { i, ...big } : { i } }));
      }
      expect(await countEvents(tx), 'nothing written before the work is done').to.equal(0);
    });
    const rows = await outboxRows(db, { companyId });
    expect(rows.map((r) => r.event_id)).to.deep.equal(recorded);
    expect(rows.map((r) => r.data.i)).to.deep.equal([...Array(24).keys()]);
    expect(new Set(rows.map((r) => r.occurred_at)).size, 'one time').to.equal(1);
  });

  it('When 1000 events are recorded in one transaction, Then their ids are unique, increase in the order recorded, and the rows are written in that order', async () => {
    const ids: string[] = [];
    await inTransaction(db, async (tx) => {
      for (let i = 0; i < 1000; i++) ids.push(await recordEvent(tx, { companyId, type: 'article.created', data: { i } }));
    });
    expect(new Set(ids).size).to.equal(1000);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `id ${i}`).to.equal(true);
    for (let i = 1; i < ids.length; i++) expect(timeOf(ids[i]!), `id ${i}`).to.be.at.least(timeOf(ids[i - 1]!));
    expect((await outboxRows(db, { companyId })).map((r) => r.event_id)).to.deep.equal(ids);
  });

  it('When an event is written with its stored data spliced in, Then the text is the delivery body of the same event, byte for byte', async () => {
    const data = { id: 7, article_code: 'ART-1', description: 'Jar "400 g" ș \u2028 \\ end', quantity: 2.5, negative: -0, tiny: 1e-7, nested: { list: [1, null, 'x'], flag: false } };
    const id = await db.transaction((tx) => recordEvent(tx, { companyId, type: 'article.created', data }));
    const row = (await db('outbox_events').select('type', 'occurred_at', 'data').where('event_id', id).first()) as { type: string; occurred_at: string; data: string };
    const event = { id, type: row.type, occurredAt: String(row.occurred_at), companyId };
    const text = eventEnvelopeText({ ...event, dataText: row.data });
    // The documented envelope (WebhookEvent) serialized whole, in its order: what the feed and a delivery carry.
    const serialized = JSON.stringify({ id, type: row.type, timestamp: toApiTime(row.occurred_at), company_id: companyId, data: JSON.parse(row.data) });
    expect(text).to.equal(serialized);
    expect(eventBody({ ...event, data: JSON.parse(row.data) })).to.equal(serialized);
    expect(JSON.parse(text)).to.deep.equal({ id, type: 'article.created', timestamp: JSON.parse(text).timestamp, company_id: companyId, data: { ...data, negative: 0 } });
  });
  it('When the company of a body is read (envelopeCompanyId), Then it is the envelope\'s company_id, not one inside the data; another order of fields is parsed; none is an error', () => {
    const body = eventBody({ id: eventId(), type: 'stock.changed', occurredAt: nowDb(), companyId: 42, data: { company_id: 7, note: '"company_id":9,' } });
    expect(envelopeCompanyId(body)).to.equal(42);
    expect(envelopeCompanyId(JSON.stringify({ company_id: 5, id: 'evt_x', type: 'x', data: {} }))).to.equal(5);
    expect(() => envelopeCompanyId('{"id":"evt_x","data":{}}')).to.throw('no company_id');
  });
});
