/** Operator CLI: list-deliveries prints the delivery log of a webhook subscription; list-failed-events and requeue-failed-events the events set aside by the fan-out. */
import { expect } from 'chai';
import { deleteWebhook, insertDelivery, insertWebhook } from '../../src/components/webhooks/webhooks.repository.js';
import { eventId } from '../../src/kernel/ids.js';
import { nowDb } from '../../src/kernel/time.js';
import { runDatabase } from '../helpers/harness.js';
import { unique } from '../helpers/factories.js';
import { idAfter, ok, refused } from './cli-helpers.js';
import { insertStoredEvent, setEventTimes } from '../fixtures/faults.js';
import { fanOutOf } from '../fixtures/probes.js';

describe('CLI list-deliveries', () => {
  let webhook: number;
  let company: number;
  const deliveries: number[] = [];

  before(async () => {
    const { db } = await runDatabase();
    const provider = idAfter((await ok('create-provider', '--name', unique('Provider ')))[0], 'company');
    company = idAfter((await ok('create-client', '--provider', String(provider), '--name', unique('Client ')))[0], 'client company');
    webhook = await insertWebhook(db, { company_id: company, url: 'https://erp.example/hooks', events: ['*'], description: null, secret: 'whsec_test', active: true });
    for (const type of ['article.created', 'article.updated', 'webhook.ping']) {
      deliveries.push(await insertDelivery(db, { webhook_id: webhook, event_id: unique('evt_'), event_type: type, payload: '{}', now: nowDb() }));
    }
    await db('webhook_deliveries').where('id', deliveries[0]).update({ status: 'delivered', attempts: 1, last_response_code: 200, delivered_at: nowDb(), next_attempt_at: null });
    await db('webhook_deliveries').where('id', deliveries[1]).update({ status: 'retrying', attempts: 2, last_response_code: 503, last_error: 'HTTP 503' });
  });

  after(async () => {
    // No webhook worker of a later suite should try to deliver these.
    await deleteWebhook((await runDatabase()).db, webhook);
  });

  it('When a subscription has deliveries, Then it prints them newest first with status, attempts and last answer', async () => {
    const lines = await ok('list-deliveries', '--webhook', String(webhook));
    expect(lines[0]).to.equal(`Webhook ${webhook} of company ${company} (https://erp.example/hooks): 3 of 3 deliveries, newest first.`);
    expect(lines[1]).to.match(/^id\s+event\s+status\s+attempts\s+code\s+created\s+delivered\s+last error$/);
    const rows = lines.slice(2).map((l) => l.split(/\s{2,}/));
    expect(rows.map((r) => r.slice(0, 4))).to.deep.equal([
      [String(deliveries[2]), 'webhook.ping', 'pending', '0'],
      [String(deliveries[1]), 'article.updated', 'retrying', '2'],
      [String(deliveries[0]), 'article.created', 'delivered', '1'],
    ]);
    expect(lines[3]).to.match(/ 503 .* next \d{4}-.*Z\s+HTTP 503$/);
    expect(lines[4]).to.match(/ 200 /);
  });

  it('When filtered by status or limited, Then only those rows are printed', async () => {
    const delivered = await ok('list-deliveries', '--webhook', String(webhook), '--status', 'delivered');
    expect(delivered[0]).to.match(/: 1 of 1 delivered deliveries, newest first\.$/);
    expect(delivered.slice(2).map((l) => l.split(/\s+/)[0])).to.deep.equal([String(deliveries[0])]);
    const newest = await ok('list-deliveries', '--webhook', String(webhook), '--limit', '1');
    expect(newest[0]).to.match(/: 1 of 3 deliveries, newest first\.$/);
    expect(newest).to.have.length(3);
    expect(await ok('list-deliveries', '--webhook', String(webhook), '--status', 'failed')).to.deep.equal([
      `Webhook ${webhook} of company ${company} (https://erp.example/hooks) has no failed deliveries.`,
    ]);
  });

  it('When the webhook is unknown or the status or limit is wrong, Then it exits 2', async () => {
    await refused(['list-deliveries', '--webhook', '999999'], '--webhook 999999: there is no webhook subscription 999999.');
    await refused(['list-deliveries', '--webhook', String(webhook), '--status', 'lost'], '--status must be one of pending, retrying, delivered, failed (got "lost").');
    await refused(['list-deliveries', '--webhook', String(webhook), '--limit', '0'], '--limit must be a whole number from 1 to 500 (got "0").');
    await refused(['list-deliveries'], 'list-deliveries needs --webhook <id> (the webhook subscription id).');
  });
});

describe('CLI list-failed-events and requeue-failed-events', () => {
  const events: string[] = [];
  let company: number;

  before(async () => {
    const { db } = await runDatabase();
    const provider = idAfter((await ok('create-provider', '--name', unique('Provider ')))[0], 'company');
    company = idAfter((await ok('create-client', '--provider', String(provider), '--name', unique('Client ')))[0], 'client company');
    for (const type of ['article.created', 'stock.changed']) {
      const id = eventId();
      events.push(id);
      await insertStoredEvent(db, {
        event_id: id, company_id: company, type, data: '{}', occurred_at: '2026-11-21 10:00:00.000000',
        fan_out_attempts: 3, fan_out_error: 'SQLITE_ERROR: no such table: webhook_deliveries', fan_out_failed_at: '2026-11-21 10:00:05.000000',
      });
    }
  });

  after(async () => {
    // Out of every later worker's way.
    await setEventTimes((await runDatabase()).db, events, { dispatched_at: nowDb(), fan_out_failed_at: null });
  });

  it('When events were set aside, Then list-failed-events prints them newest first with their company, type, attempts and last error', async () => {
    const lines = await ok('list-failed-events');
    expect(lines[0]).to.equal('2 events are set aside, their fan-out failed 3 times; 2 newest first. requeue-failed-events puts them back once the cause is fixed.');
    expect(lines[1]).to.match(/^event\s+company\s+type\s+occurred\s+attempts\s+set aside\s+last error$/);
    expect(lines.slice(2).map((l) => l.split(/\s{2,}/))).to.deep.equal([
      [events[1], String(company), 'stock.changed', '2026-11-21T10:00:00.000000Z', '3', '2026-11-21T10:00:05.000000Z', 'SQLITE_ERROR: no such table: webhook_deliveries'],
      [events[0], String(company), 'article.created', '2026-11-21T10:00:00.000000Z', '3', '2026-11-21T10:00:05.000000Z', 'SQLITE_ERROR: no such table: webhook_deliveries'],
    ]);
    expect(await ok('list-failed-events', '--limit', '1')).to.have.length(3);
  });

  it('When one event and then all are put back, Then their marks are cleared and the list is empty', async () => {
    const { db } = await runDatabase();
    expect(await ok('requeue-failed-events', '--event', events[0]!)).to.deep.equal(['Put 1 event back in the queue; the webhook worker fans it out in its next round.']);
    expect(await fanOutOf(db, events[0]!)).to.deep.equal({ fan_out_failed_at: null, fan_out_attempts: 0, fan_out_error: null, dispatched_at: null });
    expect((await ok('list-failed-events'))[0]).to.match(/^1 event is set aside/);
    expect(await ok('requeue-failed-events', '--all')).to.deep.equal(['Put 1 event back in the queue; the webhook worker fans it out in its next round.']);
    expect(await ok('list-failed-events')).to.deep.equal(['No event is set aside: every event was fanned out to its webhook subscriptions.']);
  });

  it('When neither or both of --event and --all are given, or the event is not set aside, Then it exits 2', async () => {
    await refused(['requeue-failed-events'], 'Give either --event <event id> or --all.');
    await refused(['requeue-failed-events', '--event', 'evt_x', '--all'], 'Give either --event <event id> or --all.');
    await refused(['requeue-failed-events', '--event', 'evt_nope'], '--event evt_nope: no event evt_nope is set aside (list-failed-events shows those that are).');
  });
});
