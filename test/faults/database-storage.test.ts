/**
 * A database that cannot write its files (a disk full): the request answers 503 with Retry-After,
 * never a 500, nothing of it is written, and the same request goes through once there is room.
 * SQLite's full disk is made by capping its pages (PRAGMA max_page_count), on a SQLite database of
 * its own whatever the run's engine; MariaDB's forms of the same faults, which a shared test server
 * cannot be made to show, are classified in test/unit/platform/error-status.test.ts. SQLite ends
 * the transaction itself on a disk full: the answer is the disk's, not knex's failed ROLLBACK (a 500).
 */
import { expect } from 'chai';
import { migrateLatest } from '../../db/migrations/index.js';
import type { Knex } from 'knex';
import { createDb } from '../../src/platform/db/database.js';
import { buildApp } from '../helpers/harness.js';
import { createWorld } from '../helpers/factories.js';

describe('A SQLite database whose disk is full', () => {
  let db: Knex;

  before(async () => {
    db = createDb('sqlite::memory:');
    await migrateLatest(db);
  });

  after(async () => {
    await db?.destroy();
  });

  it('When a write needs more room than the disk has, Then 503 with Retry-After: 30 and nothing written; with room again, the same write is made', async () => {
    const { app } = await buildApp({ deps: { db } });
    const world = await createWorld(app, db);
    // 100 articles of 1,000 characters: more pages than the database has free.
    const items = Array.from({ length: 100 }, (_, i) => ({ article_code: `DISK-FULL-${i}`, description: 'x'.repeat(1000), um3pl: 'BUC' }));
    const [{ page_count: pages }] = (await db.raw('PRAGMA page_count')) as Array<{ page_count: number }>;
    await db.raw(`PRAGMA max_page_count = ${pages}`);
    const full = await world.as('operator').post('/api/articles/bulk').set('Idempotency-Key', 'disk-full-1').send({ items }).expect(503);
    expect(full.headers['retry-after']).to.equal('30');
    expect(full.body).to.deep.equal({ message: 'The service is temporarily unavailable. Try again shortly.' });
    expect(await db('articles').where('article_code', 'like', 'DISK-FULL-%').count({ n: '*' })).to.deep.equal([{ n: 0 }]);

    await db.raw('PRAGMA max_page_count = 1073741823');
    const made = await world.as('operator').post('/api/articles/bulk').set('Idempotency-Key', 'disk-full-1').send({ items }).expect(200);
    expect(made.body.data).to.have.length(100);
  });
  it('When the disk fills while a bulk updates known articles (each in a savepoint), Then 503 too, not the failed ROLLBACK TO; with room again, the updates are made', async () => {
    const { app } = await buildApp({ deps: { db } });
    const world = await createWorld(app, db);
    const items = (description: string) => Array.from({ length: 100 }, (_, i) => ({ article_code: `KNOWN-${i}`, description, um3pl: 'BUC' }));
    await world.as('operator').post('/api/articles/bulk').send({ items: items('short') }).expect(200);
    const [{ page_count: pages }] = (await db.raw('PRAGMA page_count')) as Array<{ page_count: number }>;
    await db.raw(`PRAGMA max_page_count = ${pages}`);
    const full = await world.as('operator').post('/api/articles/bulk').send({ items: items('y'.repeat(1000)) }).expect(503);
    expect(full.body).to.deep.equal({ message: 'The service is temporarily unavailable. Try again shortly.' });
    expect(await db('articles').where('article_code', 'like', 'KNOWN-%').distinct('description').pluck('description')).to.deep.equal(['short']);

    await db.raw('PRAGMA max_page_count = 1073741823');
    await world.as('operator').post('/api/articles/bulk').send({ items: items('y'.repeat(1000)) }).expect(200);
  });
});
