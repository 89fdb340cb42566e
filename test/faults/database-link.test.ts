/**
 * Faults of the link between the app and its database. The app gets a Knex of its own (deps.db);
 * the world is written and checked through another connection, which the faults never touch.
 *
 * MariaDB: the app reaches the run's database through a TCP proxy (test/helpers/tcp-proxy.ts).
 *   cut = every connection reset and new ones refused; stall = a black hole; a cut at a statement =
 *   the link dies as the app sends it (the statement never arrives).
 * SQLite has no network link. There the nearest faults are used, on a temporary file:
 *   cut = the app's connection pool is destroyed (the driver answers "Unable to acquire a
 *   connection") and restored with knex.initialize() on the same Knex object, so the app is never
 *   rebuilt; stall = another connection holds the file's write lock (BEGIN IMMEDIATE), the SQLite
 *   form of a database that does not answer writes; a cut at a statement = the app's connection is
 *   closed as knex sends it (SQLite rolls back the open transaction, as MariaDB does when its
 *   client goes away), then the pool is destroyed and initialised again.
 *
 * 503 responses go through the unchecked agent: no data operation documents a 503 (the last test
 * shows that through the checked agent).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Response } from 'supertest';
import { migrateLatest } from '../../db/migrations/index.js';
import { createDb } from '../../src/platform/db/database.js';
import { errorSerializer } from '../../src/platform/logger.js';
import { api, unchecked } from '../helpers/api.js';
import { createWorld, TEST_PASSWORD, unique, type World } from '../helpers/factories.js';
import { buildApp, runDatabase, testConfig, type Harness } from '../helpers/harness.js';
import { balances, eventsOf, ledgerMismatches, movements } from '../fixtures/probes.js';
import { orderOfTen } from '../fixtures/purchase-orders.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { testEnv } from '../helpers/test-env.js';
import { until } from '../helpers/net.js';

const UNAVAILABLE = { message: 'The service is temporarily unavailable. Try again shortly.' };
/** How fast a cut link must answer, and how fast the app must come back on its own. */
const CUT_BOUND_MS = 2000;
const RECOVERY_BOUND_MS = 5000;
/**
 * The app's statement bound on MariaDB (createDb's statementTimeoutMs; the server's default is
 * STATEMENT_TIMEOUT_MS, 10 s); SQLite's is its busy timeout (5 s). A database that stops answering
 * must still be answered within STALL_BOUND_MS.
 */
const STATEMENT_BOUND_MS = 1500;
const STALL_BOUND_MS = 7000;

interface Link {
  /** The app's Knex. */
  db: Knex;
  /** Another connection to the same database, outside the link. */
  direct: Knex;
  cut(): Promise<void>;
  stall(): Promise<void>;
  /** The link dies as the app sends the first statement that matches. */
  cutAt(statement: RegExp): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Knex prints the connection errors of a cut link on the console; these tests cause them on purpose. */
function quiet(db: Knex): Knex {
  Object.assign(db.client.logger as object, { warn: () => undefined, error: () => undefined });
  return db;
}

async function mysqlLink(): Promise<Link> {
  const run = await runDatabase();
  const proxy = await startTcpProxy({ host: new URL(run.url).hostname, port: Number(new URL(run.url).port || 3306) });
  const url = new URL(run.url);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const db = quiet(createDb(url.toString(), { statementTimeoutMs: STATEMENT_BOUND_MS }));
  return {
    db,
    direct: run.db,
    cut: async () => proxy.cut('reset'),
    stall: async () => proxy.cut('blackhole'),
    cutAt: (statement) => proxy.cutWhen((chunk) => statement.test(chunk.toString('latin1'))),
    restore: () => proxy.restore(),
    close: async () => {
      await proxy.restore();
      await db.destroy();
      await proxy.close();
    },
  };
}

async function sqliteLink(): Promise<Link> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tpl-link-'));
  const file = path.join(dir, 'db.sqlite');
  const db = quiet(createDb(`sqlite:${file}`));
  await migrateLatest(db);
  const direct = createDb(`sqlite:${file}`);
  let state: 'up' | 'destroyed' | 'closed' = 'up';
  let locker: Knex | undefined;
  let listener: ((query: { sql: string }) => void) | undefined;
  return {
    db,
    direct,
    cut: async () => {
      await db.destroy();
      state = 'destroyed';
    },
    stall: async () => {
      locker = createDb(`sqlite:${file}`);
      await locker.raw('BEGIN IMMEDIATE');
    },
    cutAt: (statement) => {
      listener = (query) => {
        if (!statement.test(query.sql)) return;
        db.off('query', listener!);
        // The pool holds one connection: the one running this transaction.
        const used = (db.client.pool as unknown as { used: Array<{ resource: { close(): void } }> }).used;
        for (const { resource } of used) resource.close();
        state = 'closed';
      };
      db.on('query', listener);
    },
    restore: async () => {
      if (listener) db.off('query', listener);
      await locker?.raw('ROLLBACK');
      await locker?.destroy();
      locker = undefined;
      if (state === 'closed') await db.destroy();
      if (state !== 'up') db.initialize();
      state = 'up';
    },
    close: async () => {
      await locker?.destroy();
      if (state === 'up') await db.destroy();
      await direct.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function timed(request: PromiseLike<Response>): Promise<{ res: Response | undefined; error?: Error; ms: number }> {
  const started = Date.now();
  try {
    return { res: await request, ms: Date.now() - started };
  } catch (error) {
    return { res: undefined, error: error as Error, ms: Date.now() - started };
  }
}

function expectUnavailable(what: string, outcome: { res: Response | undefined; error?: Error; ms: number }, boundMs: number): void {
  expect(outcome.res, `${what}: no answer after ${outcome.ms} ms (${outcome.error?.message})`).to.not.equal(undefined);
  const res = outcome.res!;
  expect(res.status, `${what}: status after ${outcome.ms} ms, body ${res.text}`).to.equal(503);
  expect(res.headers['retry-after'], `${what}: Retry-After`).to.match(/^[1-9]\d*$/);
  expect(res.body, what).to.deep.equal(UNAVAILABLE);
  expect(outcome.ms, `${what}: answered after ${outcome.ms} ms`).to.be.below(boundMs);
}

describe(`The database link (${testEnv.engine === 'mysql' ? 'MariaDB behind a TCP proxy' : 'SQLite: a destroyed pool, a held write lock, a closed connection'})`, function () {
  this.timeout(60_000);
  let link: Link;
  let h: Harness;
  let world: World;

  const as = (): ReturnType<typeof unchecked> => unchecked(h.app, { token: world.users.operator.token, company: world.client.id });
  const newArticle = () => ({ article_code: unique('LINK-'), description: 'Jar', um3pl: 'BUC' });

  before(async () => {
    link = testEnv.engine === 'mysql' ? await mysqlLink() : await sqliteLink();
    h = await buildApp({ deps: { db: link.db } });
    world = await createWorld(h.app, link.direct);
  });

  afterEach(async () => {
    await link.restore();
  });

  after(async () => {
    await link?.close();
  });

  it('When the link is up, Then data requests and health answer 200 with the database up', async () => {
    await world.as('operator').get('/api/articles').expect(200);
    await world.as('operator').post('/api/articles').send(newArticle()).expect(201);
    const health = await api(h.app).get('/health').expect(200);
    expect(health.body.checks.database).to.equal(true);
  });

  it(`When the link is cut, Then reads, writes and logins answer 503 with Retry-After and the error body within ${CUT_BOUND_MS} ms, and health answers 503 down; once back, 200 on its own`, async () => {
    await world.as('operator').get('/api/articles').expect(200); // the pool holds a live connection
    await link.cut();
    expectUnavailable('GET /api/articles', await timed(as().get('/api/articles')), CUT_BOUND_MS);
    expectUnavailable('GET /api/stock', await timed(as().get('/api/stock')), CUT_BOUND_MS);
    expectUnavailable('POST /api/articles', await timed(as().post('/api/articles').send(newArticle())), CUT_BOUND_MS);
    const login = unchecked(h.app).post('/api/auth/token').send({ email: world.users.operator.email, password: TEST_PASSWORD });
    expectUnavailable('POST /api/auth/token', await timed(login), CUT_BOUND_MS);
    const health = await timed(api(h.app).get('/health'));
    expect(health.res?.status, `health after ${health.ms} ms`).to.equal(503);
    expect(health.res!.body.status).to.equal('down');
    expect(health.res!.body.checks).to.include({ database: false, queue: false });

    await link.restore();
    const back = await until(async () => (await as().get('/api/articles')).status === 200, RECOVERY_BOUND_MS, 'service back', 50);
    expect(back).to.be.below(RECOVERY_BOUND_MS);
    await world.as('operator').post('/api/articles').send(newArticle()).expect(201);
    expect((await api(h.app).get('/health').expect(200)).body.checks.database).to.equal(true);
  });

  describe('A reception in flight when the link dies', () => {
    const freshOrder = () => orderOfTen(world, 'CUT-');

    async function stored(articleId: number, orderId: number) {
      const { direct } = link;
      const receptions = await direct('receptions').where('purchase_order_id', orderId).pluck('id');
      return {
        receptions: receptions.length,
        lines: (await direct('reception_items').whereIn('reception_id', receptions).pluck('quantity')).map(Number),
        received: (await direct('purchase_order_items').where('purchase_order_id', orderId).pluck('received_quantity')).map(Number),
        status: (await direct('purchase_orders').where('id', orderId).first()).status as string,
        balances: (await balances(direct, { article_id: articleId })).map((b) => b.quantity),
        movements: (await movements(direct, { article_id: articleId })).map((m) => m.delta),
        events: (await eventsOf(direct, world.client.id, 'reception.created')).filter((reception) => reception.purchase_order_id === orderId).length,
      };
    }

    const NOTHING = { receptions: 0, lines: [], received: [0], status: 'open', balances: [], movements: [], events: 0 };
    const ONCE = { receptions: 1, lines: [4000], received: [4000], status: 'partially_received', balances: [4000], movements: [4000], events: 1 };
    const cutPoints: Array<[string, RegExp]> = [
      ['at the insert of its stock movement (after the balance moved)', /insert into `stock_movements`/i],
      ['at the insert of its event (after the stock moved)', /insert into `outbox_events`/i],
      ['at its COMMIT', /COMMIT;?/],
    ];

    for (const [point, statement] of cutPoints) {
      it(`When the link dies ${point}, Then nothing of it is stored, it answers 503, and once back the same reception is stored once`, async () => {
        const { articleId, orderId, itemId } = await freshOrder();
        const body = { purchase_order_id: orderId, warehouse_id: world.warehouses[0], selected_items: [{ po_item_id: itemId, quantity_um3pl: 4 }] };
        link.cutAt(statement);
        const outcome = await timed(as().post('/api/receptions').send(body));
        expect(await stored(articleId, orderId), 'after the cut').to.deep.equal(NOTHING);
        expect(await ledgerMismatches(link.direct)).to.deep.equal([]);

        await link.restore();
        await until(async () => (await as().get('/api/articles')).status === 200, RECOVERY_BOUND_MS, 'service back', 50);
        await world.as('operator').post('/api/receptions').send(body).expect(201);
        expect(await stored(articleId, orderId), 'after the retry').to.deep.equal(ONCE);
        expectUnavailable('POST /api/receptions', outcome, CUT_BOUND_MS);
      });
    }

    it('When the link dies at the COMMIT of a request with an Idempotency-Key, Then once back the same request with the same key is stored (a failed request stores nothing)', async () => {
      const { articleId, orderId, itemId } = await freshOrder();
      const body = { purchase_order_id: orderId, warehouse_id: world.warehouses[0], selected_items: [{ po_item_id: itemId, quantity_um3pl: 4 }] };
      const key = unique('link-key-');
      link.cutAt(/COMMIT;?/);
      await as().post('/api/receptions').set('Idempotency-Key', key).send(body);
      await link.restore();
      await until(async () => (await as().get('/api/articles')).status === 200, RECOVERY_BOUND_MS, 'service back', 50);
      const retry = await as().post('/api/receptions').set('Idempotency-Key', key).send(body);
      expect(retry.status, `the retry with the same key: ${retry.text}`).to.equal(201);
      expect(await stored(articleId, orderId)).to.deep.equal(ONCE);
    });
  });

  it(`When the database stops answering (${testEnv.engine === 'mysql' ? 'a black hole' : 'another connection holds the write lock'}), Then a write answers 503 with Retry-After within ${STALL_BOUND_MS} ms, health answers within 3 s, and writes work again once it answers`, async () => {
    // The pool holds idle connections, as it does under steady traffic; the write comes first so
    // that it meets one of them (a request that has to open a connection fails on connectTimeout).
    await Promise.all([1, 2].map(() => world.as('operator').get('/api/articles').expect(200)));
    await link.stall();
    const write = await timed(as().post('/api/articles').send(newArticle()).timeout(STALL_BOUND_MS));
    const health = await timed(unchecked(h.app).get('/health').timeout(3000));
    expect(health.res?.status, `health after ${health.ms} ms`).to.equal(testEnv.engine === 'mysql' ? 503 : 200);
    expect(health.res!.body.checks.database).to.equal(testEnv.engine !== 'mysql');
    expectUnavailable('POST /api/articles', write, STALL_BOUND_MS);
    await link.restore();
    await until(async () => (await as().post('/api/articles').send(newArticle())).status === 201, RECOVERY_BOUND_MS, 'service back', 50);
  });

  it(`When the database stops answering a statement inside a transaction, Then the transaction fails within ${STALL_BOUND_MS} ms, and the next one works once it answers`, async () => {
    // Knex runs a transaction's statements through a client of its own, made from the client's
    // class: the statement bound must hold there too (a worker's transaction waited for ever).
    await link.db.raw('select 1');
    let started = Date.now();
    // MariaDB: the link stalls after the transaction's first statement, so the one that waits carries
    // a value. SQLite: another connection holds the write lock before BEGIN IMMEDIATE (it would wait
    // for this transaction's own lock otherwise).
    if (testEnv.engine !== 'mysql') await link.stall();
    let failure: unknown;
    const transaction = await link.db
      .transaction(async (trx) => {
        await trx.raw('select 1');
        if (testEnv.engine === 'mysql') await link.stall();
        started = Date.now();
        await trx.raw('select ? as stalled_column', ['stalled-value']).catch((error: unknown) => Promise.reject((failure = error)));
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    failure ??= transaction;
    expect(transaction, 'the transaction failed').to.be.instanceOf(Error);
    expect(failure, 'the statement failed').to.be.instanceOf(Error);
    expect(Date.now() - started, 'within the bound').to.be.below(STALL_BOUND_MS);
    // What the logger writes of it names neither the statement nor its values (reliability.md).
    const logged = errorSerializer(failure) as { message: string; stack: string };
    expect([logged.message, logged.stack.split('\n')[0]].join('\n')).to.not.match(/stalled|select|begin/i);
    if (testEnv.engine === 'mysql') {
      expect(logged.message).to.equal(`The database did not answer within ${STATEMENT_BOUND_MS} ms`);
      // Knex writes the statement in front of the message, without its values.
      expect((failure as Error).message).to.match(/^select \? as stalled_column - The database did not answer/);
    }
    await link.restore();
    await until(async () => (await link.db.transaction((trx) => trx.raw('select 1')).then(() => true, () => false)), RECOVERY_BOUND_MS, 'transactions back', 50);
  });

  it('When the link is cut under a GraphQL query of a caller already verified, Then POST and GET /graphql answer HTTP 503 with Retry-After and SERVICE_UNAVAILABLE, like REST', async () => {
    // The caller's token and access come from the auth cache, so the query itself meets the outage.
    const cached = await buildApp({ config: testConfig({ AUTH_CACHE_TTL_SECONDS: '60' }), deps: { db: link.db } });
    const agent = () => api(cached.app, { token: world.users.operator.token, company: world.client.id });
    const query = '{ articles(limit: 1) { id } }';
    await agent().post('/graphql').send({ query }).expect(200);
    await link.cut();
    for (const res of [await agent().post('/graphql').send({ query }), await agent().get(`/graphql?query=${encodeURIComponent(query)}`)]) {
      expect(res.status, res.text).to.equal(503);
      expect(res.headers['retry-after'], 'Retry-After').to.equal('5');
      expect(res.body.errors).to.deep.equal([{ message: UNAVAILABLE.message, path: ['articles'], extensions: { code: 'SERVICE_UNAVAILABLE' } }]);
    }
    await link.restore();
    await until(async () => (await agent().post('/graphql').send({ query })).status === 200, RECOVERY_BOUND_MS, 'GraphQL back', 50);
  });

  it('When the database is unavailable, Then its 503 is a documented response of the operation (contract check)', async () => {
    await link.cut();
    await world.as('operator').get('/api/articles').expect(503);
  });
});
