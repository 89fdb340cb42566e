/**
 * The waiting deliveries (`pending`, `retrying`) of a switched-off subscription are held: no
 * `next_attempt_at` (webhooks.repository.ts, holdDeliveries). Before, they kept their due time,
 * and every claim of the worker, whatever company it served, read past them in the due index:
 * a subscription switched off after three days of failures held three days of retries there.
 * Those of subscriptions already off are held here; switching one on makes them due at once.
 * Holding and resuming find a subscription's waiting deliveries through (webhook_id, status),
 * not by reading its whole delivery history. `webhooks.switched_at` is when `active` last changed:
 * the fan-out, which may come after a switch, gives an event the deliveries of the state each
 * subscription was in when the event was recorded (webhooks.fan-out.ts).
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
  await knex.schema.alterTable('webhooks', (t) => {
    t.datetime('switched_at', { precision: 6 }).nullable();
  });
  await knex('webhook_deliveries').whereIn('status', WAITING).whereIn('webhook_id', ofSwitchedOff(knex)).update({ next_attempt_at: null });
}

export async function down(knex: Knex): Promise<void> {
  await knex('webhook_deliveries').whereIn('status', WAITING).whereNull('next_attempt_at').update({ next_attempt_at: now() });
  // ALTER TABLE ... DROP COLUMN on both engines: knex's dropColumn rebuilds a SQLite table, and
  // dropping the old webhooks table cascades to every delivery.
  await knex.raw('ALTER TABLE webhooks DROP COLUMN switched_at');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropIndex(['webhook_id', 'status']);
  });
}
