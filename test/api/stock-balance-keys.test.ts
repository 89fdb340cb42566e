/**
 * The statements that change one balance (or one reservation) by its key go through the key's
 * unique index, on a small table too. MariaDB's single-table UPDATE chose the article or the
 * warehouse index on a new install's few rows, locked the other rows and gaps of that article or
 * warehouse, and writes of different articles deadlocked: about 2 % of mixed writes answered 503
 * with two instances (found by a concurrency tester). queries.ts byUniqueKey.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import * as build from '../../db/seeds/builders.js';
import { migrateLatest } from '../../db/migrations/index.js';
import * as stock from '../../src/components/stock/stock.repository.js';
import { changeDemand, demandsOf, lockKeyRows } from '../../src/components/stock/stock.reservations.repository.js';
import { createScratchDatabase, type TestDatabase } from '../helpers/database.js';
import { testEnv } from '../helpers/test-env.js';

const BALANCE_INDEX = 'stock_balances_lot_key_unique';
const RESERVATION_INDEX = 'stock_reservations_key_unique';

describe('Statements on one balance by its key', () => {
  let scratch: TestDatabase;
  let keys: stock.StockKey[];

  before(async () => {
    scratch = await createScratchDatabase();
    const db = scratch.db;
    await migrateLatest(db);
    // A new install's few rows: where the plans went astray.
    const provider = await build.insertCompany(db, { name: 'P', type: 'provider' });
    const client = await build.insertCompany(db, { name: 'C', type: 'client', provider_id: provider });
    const warehouse = await build.insertWarehouse(db, { company_id: provider, code: 'W', name: 'W' });
    keys = [];
    for (const code of ['A', 'B', 'C']) {
      const article = await build.insertArticle(db, { company_id: client, article_code: code, description: code, um3pl: 'BUC' });
      keys.push({ clientId: client, warehouseId: warehouse, articleId: article, stockType: 'STOC_OK', tracked: false });
    }
    for (const key of keys) {
      await db('stock_balances').insert({ ...stock.keyColumns(key), quantity: 100_000, reserved: 50_000, updated_at: '2026-01-01 00:00:00.000000' });
      await db('stock_reservations').insert({ company_id: key.clientId, warehouse_id: key.warehouseId, article_id: key.articleId, stock_type: key.stockType, lot: '', quantity: 50_000 });
    }
  });

  after(async () => {
    await scratch?.close();
  });

  /** The statements of `kind` (UPDATEs unless told) `write` sends, each with its bindings, written in a transaction rolled back. */
  async function statementsOf(write: (tx: Knex.Transaction) => Promise<unknown>, kind = /^update/i): Promise<Array<{ sql: string; bindings: unknown[] }>> {
    const sent: Array<{ sql: string; bindings: unknown[] }> = [];
    const listen = (query: { sql: string; bindings?: unknown[] }) => {
      if (kind.test(query.sql)) sent.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    scratch.db.on('query', listen);
    try {
      await scratch.db.transaction(async (tx) => {
        await write(tx);
        throw new Error('rolled back');
      }).catch((error: Error) => {
        if (error.message !== 'rolled back') throw error;
      });
    } finally {
      scratch.db.off('query', listen);
    }
    return sent;
  }

  /** The index the database reads the statement's rows through. */
  async function indexOf(statement: { sql: string; bindings: unknown[] }): Promise<string> {
    if (testEnv.engine === 'mysql') {
      const [plan] = (await scratch.db.raw(`EXPLAIN ${statement.sql}`, statement.bindings as never[])) as [Array<{ key: string | null }>];
      return plan[0]!.key ?? 'none';
    }
    const plan = (await scratch.db.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, statement.bindings as never[])) as Array<{ detail: string }>;
    return /USING (?:COVERING )?INDEX (\w+)/.exec(plan.map((step) => step.detail).join('; '))?.[1] ?? 'none';
  }

  it('When a balance or a reservation is changed by its key, Then the statement reads it through the key\'s unique index', async () => {
    const key = keys[0]!;
    const writes: Array<[string, (tx: Knex.Transaction) => Promise<unknown>, string]> = [
      ['lowerBalance', (tx) => stock.lowerBalance(tx, key, 1_000), BALANCE_INDEX],
      ['lowerAvailable', (tx) => stock.lowerAvailable(tx, key, 1_000), BALANCE_INDEX],
      ['setBalance', (tx) => stock.setBalance(tx, key, 90_000, 100_000), BALANCE_INDEX],
      ['deliverFromBalance', (tx) => stock.deliverFromBalance(tx, key, 1_000), BALANCE_INDEX],
      ['changeReserved (a release)', (tx) => stock.changeReserved(tx, key, -1_000, 0), BALANCE_INDEX],
      ['changeDemand (a release)', (tx) => changeDemand(tx, key, '', -1_000, 0), RESERVATION_INDEX],
    ];
    for (const [name, write, index] of writes) {
      const statements = await statementsOf(write);
      expect(statements, name).to.have.length(1);
      expect(await indexOf(statements[0]!), name).to.equal(index);
    }
  });

  // The allocation's locking reads of a key's rows (articles that track lots): through the warehouse
  // index they locked every balance or reservation of the warehouse, and documents of different
  // articles deadlocked (a consistency tester: 503 on 1-9 % of cancellations and order edits).
  // SQLite has no row locks (one writing transaction at a time): its plan does not matter there.
  it("When the allocation locks a key's balance rows and reads its demand, Then both answer the key's rows, read and locked through the key's unique index (MySQL/MariaDB)", async () => {
    const key = keys[0]!;
    const [rows, demand] = await scratch.db.transaction(async (tx) => Promise.all([lockKeyRows(tx, key), demandsOf(tx, key)]));
    expect(rows.map((r) => [r.quantity, r.reserved])).to.deep.equal([[100_000, 50_000]]);
    expect(demand).to.deep.equal([{ lot: '', quantity: 50_000 }]);
    if (testEnv.engine !== 'mysql') return;
    const reads: Array<[string, (tx: Knex.Transaction) => Promise<unknown>, string]> = [
      ['lockKeyRows', (tx) => lockKeyRows(tx, key), BALANCE_INDEX],
      ['demandsOf', (tx) => demandsOf(tx, key), RESERVATION_INDEX],
    ];
    for (const [name, read, index] of reads) {
      const statements = await statementsOf(read, /^select/i);
      expect(statements, name).to.have.length(1);
      expect(statements[0]!.sql, name).to.match(/for update$/);
      expect(await indexOf(statements[0]!), name).to.equal(index);
    }
  });

  // Through the article index the first statement locked A's other rows and the gaps around them in
  // that index, so a balance of A for quarantine waited (and two such transactions deadlocked).
  // Through the key, InnoDB still locks the gap just before the row in the key's order (a next-key
  // lock): a new key sorting right before it, A's STOC_DEFECT, would wait.
  it('When one transaction holds a change of article A\'s balance, Then another creates A\'s quarantine balance and changes B\'s at once (MySQL/MariaDB)', async function () {
    if (testEnv.engine !== 'mysql') {
      // SQLite runs one writing transaction at a time: there are no row locks to check.
      expect(await indexOf((await statementsOf((tx) => stock.lowerBalance(tx, keys[1]!, 1)))[0]!)).to.equal(BALANCE_INDEX);
      return;
    }
    const holder = await scratch.db.transaction();
    try {
      expect(await stock.lowerBalance(holder, keys[0]!, 1_000)).to.equal(true);
      await scratch.db.transaction(async (tx) => {
        await tx.raw('SET SESSION innodb_lock_wait_timeout = 1');
        expect(await stock.raiseBalance(tx, { ...keys[0]!, stockType: 'STOC_QUARANTINE' }, 1_000, 10 ** 15)).to.equal(true);
        expect(await stock.lowerBalance(tx, keys[1]!, 1_000)).to.equal(true);
        expect(await stock.changeReserved(tx, keys[2]!, -1_000, 0)).to.equal(true);
        await tx.raw('SET SESSION innodb_lock_wait_timeout = 50');
      });
    } finally {
      await holder.rollback();
    }
  });
});
