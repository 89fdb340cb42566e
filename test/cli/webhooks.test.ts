/** Operator CLI: list-deliveries prints the delivery log of a webhook subscription. */
import { expect } from 'chai';
import { deleteWebhook, insertDelivery, insertWebhook } from '../../src/components/webhooks/webhooks.repository.js';
import { nowDb } from '../../src/kernel/time.js';
import { runDatabase } from '../helpers/harness.js';
import { unique } from '../helpers/factories.js';
import { idAfter, ok, refused } from './cli-helpers.js';

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
