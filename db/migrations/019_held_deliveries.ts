/**
 * The waiting deliveries (`pending`, `retrying`) of a switched-off subscription are held: no
 * `next_attempt_at` (webhooks.repository.ts, holdDeliveries). Before, they kept their due time,
 * and every claim of the worker, whatever company it served, read past them in the due index:
 * a subscription switched off after three days of failures held three days of retries there.
 * Those of subscriptions already off are held here; switching one on makes them due at once.
 * Holding and resuming find a subscription's waiting deliveries through (webhook_id, status),
 * not by reading its whole delivery history.
 *
 * Rolling back gives them a due time again (the time of the rollback): the worker before it
 * passes over a switched-off subscription's deliveries by its `active` flag.
 */
import type { Knex } from 'knex';

const WAITING = ['pending', 'retrying'];

const now = (): string => new Date().toISOString().replace('T', ' ').replace('Z', '000');

const ofSwitchedOff = (knex: Knex) => knex('webhooks').select('id').where('active', false);

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.index(['webhook_id', 'status']);
  });
  await knex('webhook_deliveries').whereIn('status', WAITING).whereIn('webhook_id', ofSwitchedOff(knex)).update({ next_attempt_at: null });
}

export async function down(knex: Knex): Promise<void> {
  await knex('webhook_deliveries').whereIn('status', WAITING).whereNull('next_attempt_at').update({ next_attempt_at: now() });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['webhook_id', 'status']);
  });
}
