/**
 * The stock ledger at the service level, on a scratch database of the run's engine:
 * applyStockChange moves a balance and writes its movement in the caller's transaction, never
 * takes a balance below zero, and leaves the balance equal to the sum of its movements. And
 * ledgerMismatches (the root hook's check) really notices a balance that disagrees.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import * as build from '../../db/seeds/builders.js';
import { migrateLatest } from '../../db/migrations/index.js';
import { applyStockChange, type StockChange } from '../../src/components/stock/stock.service.js';
import { InputError } from '../../src/platform/errors.js';
import { createScratchDatabase, type TestDatabase } from '../helpers/database.js';
import { balances, eventsOf, ledgerMismatches, movements } from '../fixtures/probes.js';

const FIELD = 'items.0.quantity_um3pl';

describe('The stock ledger (applyStockChange)', () => {
  let scratch: TestDatabase;
  let db: Knex;
  let client: number;
  let warehouse: number;
  let articleSeq = 0;

  before(async () => {
    scratch = await createScratchDatabase();
    db = scratch.db;
    await migrateLatest(db);
    const provider = await build.insertCompany(db, { name: 'Ledger provider', type: 'provider' });
    client = await build.insertCompany(db, { name: 'Ledger client', type: 'client', provider_id: provider });
    warehouse = await build.insertWarehouse(db, { company_id: provider, code: 'LWH', name: 'Ledger warehouse' });
    await build.insertUnit(db, { company_id: provider, code: 'BUC', name: 'Piece', integer_only: true });
  });

  after(async () => {
    await scratch?.close();
  });

  afterEach(async () => {
    expect(await ledgerMismatches(db)).to.deep.equal([]);
  });

  async function article(): Promise<{ id: number; code: string }> {
    const code = `LEDGER-${++articleSeq}`;
    return { id: await build.insertArticle(db, { company_id: client, article_code: code, description: `Ledger ${code}`, um3pl: 'BUC' }), code };
  }

  const change = (a: { id: number; code: string }, delta: number, extra: Partial<StockChange> = {}): StockChange => ({
    clientId: client,
    warehouseId: warehouse,
    articleId: a.id,
    stockType: 'STOC_OK',
    delta,
    cause: 'adjustment',
    document: { kind: 'adjustment', id: 77 },
    userId: null,
    articleCode: a.code,
    field: FIELD,
    ...extra,
  });

  const apply = (c: StockChange) => db.transaction((tx) => applyStockChange(tx, c));

  async function state(articleId: number) {
    const events = (await eventsOf(db, client, 'stock.changed')).filter((d) => d.article_id === articleId);
    return {
      balances: (await balances(db, { article_id: articleId })).map((b) => `${b.stock_type}=${b.quantity}`),
      movements: (await movements(db, { article_id: articleId })).map(({ delta, cause, document_kind, document_id, user_id, stock_type }) => ({ delta, cause, document_kind, document_id, user_id, stock_type })),
      events: events.map((d) => d.quantity as number),
    };
  }

  it('When stock is raised, Then the balance is created with the delta, one movement explains it and stock.changed is recorded', async () => {
    const a = await article();
    const level = await apply(change(a, 5250, { cause: 'reception', document: { kind: 'reception', id: 12 } }));
    expect(level).to.include({ client_3pl_id: client, warehouse_id: warehouse, article_id: a.id, article_code: a.code, stock_type: 'STOC_OK', quantity: 5.25, available: 5.25 });
    const s = await state(a.id);
    expect(s.balances).to.deep.equal(['STOC_OK=5250']);
    expect(s.movements).to.deep.equal([{ delta: 5250, cause: 'reception', document_kind: 'reception', document_id: 12, user_id: null, stock_type: 'STOC_OK' }]);
    expect(s.events).to.deep.equal([5.25]);

    await apply(change(a, 750));
    expect((await state(a.id)).balances).to.deep.equal(['STOC_OK=6000']);
    expect((await state(a.id)).movements.map((m) => m.delta)).to.deep.equal([5250, 750]);
  });

  it('When stock moves up and down, Then each movement keeps the balance right after it', async () => {
    const a = await article();
    for (const delta of [4000, -1500, 250, -2750]) await apply(change(a, delta));
    const after = await db('stock_movements').where('article_id', a.id).orderBy('id').pluck('quantity_after');
    expect(after.map(Number)).to.deep.equal([4000, 2500, 2750, 0]);
  });

  it('When stock is lowered below zero, Then it throws an InputError on the field naming the article and the shortfall, and nothing changes', async () => {
    const a = await article();
    await apply(change(a, 5000));
    const before = await state(a.id);
    let caught: unknown;
    try {
      await apply(change(a, -6500));
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(InputError);
    const error = caught as InputError;
    expect(Object.keys(error.errors)).to.deep.equal([FIELD]);
    expect(error.errors[FIELD]).to.deep.equal([error.message]);
    expect(error.message).to.include(a.code);
    expect(error.message).to.include('short by 1.5');
    expect(error.message).to.equal(`Not enough STOC_OK stock of article ${a.code} in warehouse ${warehouse}: 5 on hand, 6.5 needed, short by 1.5.`);
    expect(await state(a.id)).to.deep.equal(before);
  });

  it('When a stock type that holds nothing is lowered, Then the shortfall is the whole quantity and no balance is created', async () => {
    const a = await article();
    await apply(change(a, 2000));
    const error = await apply(change(a, -1000, { stockType: 'STOC_DEFECT' })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(InputError);
    expect((error as InputError).message).to.equal(`Not enough STOC_DEFECT stock of article ${a.code} in warehouse ${warehouse}: 0 on hand, 1 needed, short by 1.`);
    expect((await state(a.id)).balances).to.deep.equal(['STOC_OK=2000']);
  });

  it('When a failure later in the same transaction rolls it back, Then the raise and its movement go too', async () => {
    const a = await article();
    const failed = await db
      .transaction(async (tx) => {
        await applyStockChange(tx, change(a, 3000));
        throw new Error('later step failed');
      })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(failed?.message).to.equal('later step failed');
    expect(await state(a.id)).to.deep.equal({ balances: [], movements: [], events: [] });
  });

  it('When stock is lowered to exactly zero, Then it works and the balance stays at 0 with both movements', async () => {
    const a = await article();
    await apply(change(a, 4000, { userId: null }));
    const level = await apply(change(a, -4000, { cause: 'delivery', document: { kind: 'sales_order', id: 9 } }));
    expect(level).to.include({ quantity: 0, available: 0 });
    const s = await state(a.id);
    expect(s.balances).to.deep.equal(['STOC_OK=0']);
    expect(s.movements.map((m) => [m.delta, m.cause])).to.deep.equal([
      [4000, 'adjustment'],
      [-4000, 'delivery'],
    ]);
    expect(s.events).to.deep.equal([4, 0]);
  });

  for (const [what, delta] of [
    ['zero', 0],
    ['a fraction of a thousandth', 1.5],
    ['NaN', Number.NaN],
    ['an unsafe integer', 2 ** 53],
  ] as const) {
    it(`When the delta is ${what}, Then it is a programming error (not a 422) and nothing changes`, async () => {
      const a = await article();
      await apply(change(a, 1000));
      const before = await state(a.id);
      const error = await apply(change(a, delta)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(Error);
      expect(error).to.not.be.instanceOf(InputError);
      expect((error as Error).message).to.match(/non-zero whole delta/);
      expect(await state(a.id)).to.deep.equal(before);
    });
  }
});

describe('ledgerMismatches', () => {
  let scratch: TestDatabase;
  let db: Knex;

  before(async () => {
    scratch = await createScratchDatabase();
    db = scratch.db;
    await migrateLatest(db);
  });

  after(async () => {
    await scratch?.close();
  });

  it('When a balance is changed without a movement, its last movement names another balance after it, or movements lack a balance, Then it reports each; when fixed, nothing', async () => {
    const provider = await build.insertCompany(db, { name: 'Check provider', type: 'provider' });
    const client = await build.insertCompany(db, { name: 'Check client', type: 'client', provider_id: provider });
    const warehouse = await build.insertWarehouse(db, { company_id: provider, code: 'CWH', name: 'Check warehouse' });
    const a = await build.insertArticle(db, { company_id: client, article_code: 'CHECK-1', description: 'Checked', um3pl: 'BUC' });
    const b = await build.insertArticle(db, { company_id: client, article_code: 'CHECK-2', description: 'Orphan', um3pl: 'BUC' });
    await db.transaction((tx) =>
      applyStockChange(tx, { clientId: client, warehouseId: warehouse, articleId: a, stockType: 'STOC_OK', delta: 3000, cause: 'adjustment', document: { kind: 'adjustment', id: 1 }, userId: null, articleCode: 'CHECK-1', field: 'quantity' }),
    );
    expect(await ledgerMismatches(db)).to.deep.equal([]);

    const [balance] = await balances(db, { article_id: a });
    // The ledger is corrupted by hand here: the check itself is under test.
    await db('stock_balances').where('id', balance!.id).update({ quantity: 3001 });
    expect(await ledgerMismatches(db)).to.deep.equal([
      `balance ${balance!.id}: quantity 3001, movements sum to 3000`,
      `balance ${balance!.id}: quantity 3001, its last movement says 3000 after it`,
    ]);

    await db('stock_balances').where('id', balance!.id).update({ quantity: 3000 });
    await db('stock_movements').where('article_id', a).update({ quantity_after: 2999 });
    expect(await ledgerMismatches(db)).to.deep.equal([`balance ${balance!.id}: quantity 3000, its last movement says 2999 after it`]);

    await db('stock_movements').where('article_id', a).update({ quantity_after: 3000 });
    await db('stock_movements').insert({
      company_id: client,
      warehouse_id: warehouse,
      article_id: b,
      stock_type: 'STOC_OK',
      delta: 500,
      cause: 'adjustment',
      document_kind: 'adjustment',
      document_id: 2,
      user_id: null,
      created_at: '2026-01-01 00:00:00.000000',
    });
    expect(await ledgerMismatches(db)).to.deep.equal([`movements of article ${b} sum to 500 without a balance`]);

    await db('stock_movements').where('article_id', b).delete();
    expect(await ledgerMismatches(db)).to.deep.equal([]);
  });
});
