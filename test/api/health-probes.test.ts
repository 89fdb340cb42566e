/**
 * The probes of a deployment: /livez (the process answers, whatever its database does) and
 * /readyz (this instance can serve: database, migrations, Redis when configured), as a load
 * balancer or an orchestrator reads them.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { buildApp, testConfig } from '../helpers/harness.js';
import { api } from '../helpers/api.js';
import { closedPort, redisAnswers, until } from '../helpers/net.js';
import { createScratchDatabase, type TestDatabase } from '../helpers/database.js';
import { testEnv } from '../helpers/test-env.js';
import { createDb } from '../../src/platform/db/database.js';
import { migrationSource } from '../../db/migrations/index.js';
import { connectRedis, type RedisConnection } from '../../src/platform/redis.js';
import { readDocument } from '../../src/platform/openapi/document.js';
import { databaseProblem } from '../../src/components/health/readiness.js';

const silent = pino({ level: 'silent' });

function deadDatabase(): Knex {
  const dead = createDb('mysql://root@127.0.0.1:1/none');
  (dead.client as { logger: { warn: (message: string) => void } }).logger.warn = () => undefined;
  return dead;
}

describe('GET /livez', () => {
  let dead: Knex;

  after(async () => {
    await dead?.destroy();
  });

  it('When the process answers, Then it is 200 {"status":"ok"} and sends no statement to the database', async () => {
    const h = await buildApp();
    const sent: string[] = [];
    const listen = (query: { sql: string }): void => void sent.push(query.sql);
    h.db.on('query', listen);
    try {
      const res = await api(h.app).get('/livez').expect(200).expect('Content-Type', /^application\/json/);
      expect(res.body).to.deep.equal({ status: 'ok' });
    } finally {
      h.db.off('query', listen);
    }
    expect(sent).to.deep.equal([]);
  });

  it('When the database does not answer, Then it is still 200 at once', async () => {
    dead = deadDatabase();
    const h = await buildApp({ deps: { db: dead } });
    const started = Date.now();
    await api(h.app).get('/livez').timeout(5000).expect(200, { status: 'ok' });
    expect(Date.now() - started).to.be.below(1000);
  });
});

describe('GET /readyz', () => {
  const pending: Array<Promise<RedisConnection>> = [];
  let dead: Knex | undefined;
  let scratch: TestDatabase | undefined;

  afterEach(async () => {
    await dead?.destroy();
    await scratch?.close();
    dead = scratch = undefined;
  });

  after(async () => {
    for (const connection of pending) await (await connection).close();
  });

  it('When the database answers with every migration applied and no Redis is configured, Then it is 200 ready without a redis check', async () => {
    const res = await api((await buildApp()).app).get('/readyz').expect(200);
    expect(res.body).to.deep.equal({ status: 'ready', checks: { database: true, migrations: true }, reasons: [] });
  });

  it('When REDIS_URL is set and Redis answers, Then it is 200 ready with redis true', async function () {
    if (!(await redisAnswers(testEnv.redisUrl))) {
      if (testEnv.ci) throw new Error(`Redis is not reachable at ${testEnv.redisUrl} (required under CI=true)`);
      this.skip();
    }
    const connection = connectRedis(testEnv.redisUrl, silent);
    pending.push(connection);
    // connectRedis waits for Redis at most 2 s; on a busy machine the connection may come up later.
    await until(async () => (await connection).ping(), 10_000, 'the Redis connection answers PING');
    const h = await buildApp({ config: testConfig({ REDIS_URL: testEnv.redisUrl }), deps: { redis: await connection } });
    // Building the app compiles the document's validators, which may hold the event loop past a
    // Redis command's 500 ms: the connection is then replaced, and answers again once reconnected.
    await until(async () => (await connection).ping(), 10_000, 'the Redis connection answers PING after the app is built');
    const res = await api(h.app).get('/readyz').expect(200);
    expect(res.body).to.deep.equal({ status: 'ready', checks: { database: true, migrations: true, redis: true }, reasons: [] });
  });

  it('When REDIS_URL is set but no Redis listens there, Then it is 503 not_ready naming Redis, the database still true', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const connection = connectRedis(url, silent);
    pending.push(connection);
    const h = await buildApp({ config: testConfig({ REDIS_URL: url }), deps: { redis: await connection } });
    const res = await api(h.app).get('/readyz').timeout(8000).expect(503);
    expect(res.body).to.deep.equal({ status: 'not_ready', checks: { database: true, migrations: true, redis: false }, reasons: ['Redis (REDIS_URL) does not answer.'] });
  });

  it('When the database does not answer, Then it is 503 not_ready with database and migrations false, within seconds', async () => {
    dead = deadDatabase();
    const h = await buildApp({ deps: { db: dead } });
    const started = Date.now();
    const res = await api(h.app).get('/readyz').timeout(8000).expect(503);
    expect(Date.now() - started).to.be.below(4000);
    expect(res.body).to.deep.equal({ status: 'not_ready', checks: { database: false, migrations: false }, reasons: ['The database does not answer.'] });
  });

  it('When the database server answers but refuses DATABASE_URL (no such database, wrong credentials), Then the reason says which, without the server\'s text', async () => {
    expect(databaseProblem(Object.assign(new Error("Unknown database 'tpl_nope'"), { code: 'ER_BAD_DB_ERROR' }))).to.equal('The database named in DATABASE_URL does not exist on its server.');
    expect(databaseProblem(Object.assign(new Error("Access denied for user 'tpl'@'10.0.0.5'"), { code: 'ER_ACCESS_DENIED_ERROR' }))).to.equal("The database server refused DATABASE_URL's user or password.");
    expect(databaseProblem(Object.assign(new Error("Access denied for user 'nobody'@'localhost'"), { code: 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR', errno: 1698 }))).to.equal("The database server refused DATABASE_URL's user or password.");
    expect(databaseProblem(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).to.equal('The database does not answer.');
    if (testEnv.engine !== 'mysql') return;
    const url = new URL(testEnv.mysqlUrl);
    url.pathname = '/tpl_no_such_database';
    const missing = createDb(url.href);
    (missing.client as { logger: { warn: (message: string) => void } }).logger.warn = () => undefined;
    try {
      const res = await api((await buildApp({ deps: { db: missing } })).app).get('/readyz').timeout(8000).expect(503);
      expect(res.body).to.deep.equal({ status: 'not_ready', checks: { database: false, migrations: false }, reasons: ['The database named in DATABASE_URL does not exist on its server.'] });
    } finally {
      await missing.destroy();
    }
  });

  it('When the database was never migrated, Then it is 503 naming every migration to run', async () => {
    scratch = await createScratchDatabase();
    const h = await buildApp({ deps: { db: scratch.db } });
    const all = await migrationSource.getMigrations([]);
    const res = await api(h.app).get('/readyz').expect(503);
    expect(res.body.checks).to.deep.equal({ database: true, migrations: false });
    expect(res.body.reasons).to.deep.equal([`${all.length} migrations are not applied (${all.join(', ')}); run the migrations.`]);
  });

  it('When all but the last migration are applied, Then it is 503 naming that one, and 200 once it is applied', async () => {
    scratch = await createScratchDatabase();
    const all = await migrationSource.getMigrations([]);
    for (let i = 0; i < all.length - 1; i++) await scratch.db.migrate.up({ migrationSource });
    const h = await buildApp({ deps: { db: scratch.db } });
    const res = await api(h.app).get('/readyz').expect(503);
    expect(res.body.reasons).to.deep.equal([`1 migration is not applied (${all.at(-1)}); run the migrations.`]);
    await scratch.db.migrate.up({ migrationSource });
    await api(h.app).get('/readyz').expect(200);
  });

  it('When the database records a migration this version does not know (a newer version migrated it), Then it is 503 naming it, and 200 once the record is gone', async () => {
    scratch = await createScratchDatabase();
    await scratch.db.migrate.latest({ migrationSource });
    const h = await buildApp({ deps: { db: scratch.db } });
    await api(h.app).get('/readyz').expect(200);
    const newer = '099_from_a_newer_version';
    await scratch.db('knex_migrations').insert({ name: newer, batch: 99, migration_time: new Date() });
    const res = await api(h.app).get('/readyz').expect(503);
    expect(res.body).to.deep.equal({
      status: 'not_ready',
      checks: { database: true, migrations: false },
      reasons: [`The database was migrated by a newer version of the service (${newer}), which this version does not know; run that version, or restore the backup taken before its migrate.`],
    });
    await scratch.db('knex_migrations').where('name', newer).delete();
    await api(h.app).get('/readyz').expect(200);
  });
});

describe('The probes in the OpenAPI document', () => {
  it('When /livez and /readyz are read from the document, Then they need no token, no module and no rate limit, and /livez never the database', () => {
    const paths = readDocument().paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const [path, operationId] of [['/livez', 'getLiveness'], ['/readyz', 'getReadiness']] as const) {
      const op = paths[path]!.get!;
      expect(op).to.include({ operationId, 'x-module': 'none', 'x-role': 'none', 'x-rate-limit': 'none' });
      expect(op.security).to.deep.equal([]);
    }
    expect(paths['/livez']!.get!['x-database']).to.equal(false);
    expect(Object.keys(paths['/livez']!.get!.responses as object)).to.deep.equal(['200']);
    expect(Object.keys(paths['/readyz']!.get!.responses as object)).to.deep.equal(['200', '503']);
  });
});
