/**
 * paged(): the page and the count run at once on two connections, so a write committing between
 * them (MySQL/MariaDB) could make the count disagree with the page; the total is kept within what
 * the page saw. The race is played by a count of other rows: one row more, or fewer.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createScratchDatabase, type TestDatabase } from '../../helpers/database.js';
import { paged, totalSeenBy } from '../../../src/platform/db/queries.js';

describe('paged', () => {
  let database: TestDatabase;
  let db: Knex;

  before(async () => {
    database = await createScratchDatabase();
    db = database.db;
    await db.schema.createTable('paged_probe', (t) => {
      t.increments('id');
    });
    await db('paged_probe').insert(Array.from({ length: 7 }, (_, i) => ({ id: i + 1 })));
  });

  after(() => database.close());

  const page = (number: number, perPage: number, countedRows: number) =>
    paged(db('paged_probe').select('id').orderBy('id'), { page: number, perPage }, (row: { id: number }) => row.id, db('paged_probe').where('id', '<=', countedRows));

  it('When the count agrees with the page, Then the total is the count', async () => {
    expect(await page(1, 5, 7)).to.deep.equal({ rows: [1, 2, 3, 4, 5], total: 7 });
    expect(await page(2, 5, 7)).to.deep.equal({ rows: [6, 7], total: 7 });
  });

  it('When the count saw fewer rows than the page (a row committed in between), Then the total takes the rows the page saw', async () => {
    expect((await page(1, 5, 4)).total, 'a full page and a row after it').to.equal(6);
    expect((await page(2, 5, 5)).total, 'the last page').to.equal(7);
  });

  it('When the count saw more rows than the page (rows left in between), Then the last page says where the rows end', () => {
    expect(totalSeenBy(9, 5, 2, false), 'the second page of 5 shows 2 and none follows').to.equal(7);
    expect(totalSeenBy(12, 10, 0, false), 'an empty page at offset 10: at most 10 rows').to.equal(10);
    expect(totalSeenBy(4, 10, 0, false), 'an empty page beyond a smaller count: the count').to.equal(4);
    expect(totalSeenBy(30, 0, 5, true), 'a full page with more after it: the count').to.equal(30);
  });
});
