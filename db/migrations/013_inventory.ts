/**
 * Inventory control (issue 21): stock adjustments and transfers with their lines, and the ledger
 * made readable.
 *
 * - `stock_movements.quantity_after`: the balance right after the movement (its running sum in
 *   ledger order), filled in for the movements already there.
 * - The movement feed (GET /api/stock/movements) is placed after commit like the events feed
 *   (src/platform/feeds/sequencer.ts): `feed_seq`, and `feed_horizon`, the latest `created_at`
 *   of every movement placed up to that place (never falling), so a reader that asks `since` a
 *   time starts at the first place whose horizon reaches it. Movements already there are placed
 *   in id order.
 * - Stock as of a time (GET /api/stock/as-of) seeks the last movement of a balance at or before
 *   the instant: the balance key's index gains `created_at` (it replaces the key index, which it
 *   starts with). Lots and expiry dates join the stock key later (issue 21 leaves them out): they
 *   then go between `stock_type` and `created_at` in this index, and on each line table.
 *
 * MySQL/MariaDB index every foreign key by itself and drop that index once another one starts with
 * the same column: (article_id, feed_seq) takes over the index of `article_id`'s foreign key, so
 * going down gives the key its own index back (under the key's name) before dropping the pair.
 */
import type { Knex } from 'knex';

const KEY = ['company_id', 'warehouse_id', 'article_id', 'stock_type'];

function isMysql(knex: Knex): boolean {
  return knex.client.config.client === 'mysql2';
}

function timestamps(t: Knex.CreateTableBuilder): void {
  t.datetime('created_at', { precision: 6 }).notNullable();
  t.datetime('updated_at', { precision: 6 }).notNullable();
}

function fk(t: Knex.CreateTableBuilder, column: string, table: string): Knex.ReferencingColumnBuilder {
  return t.integer(column).unsigned().references('id').inTable(table);
}

/** The header every inventory document has: its client, its code, who made it, when. */
function documentHeader(t: Knex.CreateTableBuilder): void {
  t.increments('id');
  fk(t, 'company_id', 'companies').notNullable();
  t.string('internal_code', 64).nullable().collate('utf8mb4_bin');
  t.string('note', 2000).nullable();
  t.integer('user_id').unsigned().nullable();
  timestamps(t);
  t.unique(['company_id', 'internal_code']);
  t.index(['company_id', 'id']);
  t.index(['company_id', 'updated_at']);
}

async function createDocuments(knex: Knex): Promise<void> {
  await knex.schema.createTable('stock_adjustments', (t) => {
    documentHeader(t);
    fk(t, 'warehouse_id', 'warehouses').notNullable();
    t.string('reason', 16).notNullable();
  });
  await knex.schema.createTable('stock_adjustment_items', (t) => {
    t.increments('id');
    fk(t, 'adjustment_id', 'stock_adjustments').notNullable().index();
    fk(t, 'article_id', 'articles').notNullable();
    t.string('um3pl', 16).notNullable();
    t.string('stock_type', 24).notNullable();
    /** The count the line gave (thousandths); null for a line with a delta. */
    t.bigInteger('counted').nullable();
    t.bigInteger('delta').notNullable();
    t.bigInteger('quantity_before').notNullable();
    t.bigInteger('quantity_after').notNullable();
  });
  await knex.schema.createTable('stock_transfers', (t) => {
    documentHeader(t);
  });
  await knex.schema.createTable('stock_transfer_items', (t) => {
    t.increments('id');
    fk(t, 'transfer_id', 'stock_transfers').notNullable().index();
    fk(t, 'article_id', 'articles').notNullable();
    t.string('um3pl', 16).notNullable();
    t.bigInteger('quantity').notNullable();
    fk(t, 'from_warehouse_id', 'warehouses').notNullable();
    t.string('from_stock_type', 24).notNullable();
    fk(t, 'to_warehouse_id', 'warehouses').notNullable();
    t.string('to_stock_type', 24).notNullable();
  });
}

/**
 * The running sum of each balance's deltas in ledger (id) order, and the feed places in id order
 * under a horizon (the latest created_at so far in id order). On MySQL/MariaDB the horizon is one
 * ordered pass through a session variable: MariaDB computes MAX() OVER a growing frame again for
 * every row (47 s for 49,000 movements, hours for a real ledger), while its SUM() OVER is linear.
 */
async function fillExisting(knex: Knex): Promise<void> {
  const runningSum = `SUM(delta) OVER (PARTITION BY ${KEY.join(', ')} ORDER BY id ROWS UNBOUNDED PRECEDING) AS after_sum`;
  if (isMysql(knex)) {
    await knex.raw(`UPDATE stock_movements m JOIN (SELECT id, ${runningSum} FROM stock_movements) w ON w.id = m.id
      SET m.quantity_after = w.after_sum, m.feed_seq = m.id`);
    // One connection: the migration's transaction.
    await knex.raw('SET @horizon := NULL');
    await knex.raw('UPDATE stock_movements SET feed_horizon = (@horizon := IF(@horizon IS NULL OR created_at > @horizon, created_at, @horizon)) ORDER BY id');
  } else {
    await knex.raw(`UPDATE stock_movements SET quantity_after = w.after_sum, feed_seq = stock_movements.id, feed_horizon = w.horizon
      FROM (SELECT id, ${runningSum}, MAX(created_at) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS horizon FROM stock_movements) AS w WHERE w.id = stock_movements.id`);
  }
  const last = await knex('stock_movements').max({ last: 'id' }).first();
  await knex('feed_sequences').insert({ name: 'stock_movements', last_seq: Number(last?.last ?? 0) });
}

export async function up(knex: Knex): Promise<void> {
  await createDocuments(knex);
  await knex.schema.alterTable('stock_movements', (t) => {
    t.bigInteger('quantity_after').notNullable().defaultTo(0);
    t.bigInteger('feed_seq').nullable().unique();
    t.datetime('feed_horizon', { precision: 6 }).nullable();
  });
  await fillExisting(knex);
  await knex.schema.alterTable('stock_movements', (t) => {
    t.index([...KEY, 'created_at'], 'stock_movements_key_time_index');
    t.index(['company_id', 'feed_seq']);
    t.index(['article_id', 'feed_seq']);
    t.index(['feed_horizon', 'feed_seq']);
  });
  await knex.schema.alterTable('stock_movements', (t) => {
    t.dropIndex(KEY, 'stock_movements_key_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stock_movements', (t) => {
    t.index(KEY, 'stock_movements_key_index');
  });
  if (isMysql(knex)) {
    await knex.schema.alterTable('stock_movements', (t) => {
      t.index(['article_id'], 'stock_movements_article_id_foreign');
    });
  }
  await knex.schema.alterTable('stock_movements', (t) => {
    t.dropIndex([...KEY, 'created_at'], 'stock_movements_key_time_index');
    t.dropIndex(['company_id', 'feed_seq']);
    t.dropIndex(['article_id', 'feed_seq']);
    t.dropIndex(['feed_horizon', 'feed_seq']);
    t.dropUnique(['feed_seq']);
  });
  await knex.schema.alterTable('stock_movements', (t) => {
    t.dropColumn('feed_horizon');
    t.dropColumn('feed_seq');
    t.dropColumn('quantity_after');
  });
  await knex('feed_sequences').where('name', 'stock_movements').delete();
  for (const table of ['stock_transfer_items', 'stock_transfers', 'stock_adjustment_items', 'stock_adjustments']) {
    await knex.schema.dropTableIfExists(table);
  }
}
