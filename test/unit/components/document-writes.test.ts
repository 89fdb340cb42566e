/**
 * writeDocument (src/components/documents/document-writes.ts), the one path of every write of a
 * resource with a client's code, on the run's database: the work, the re-read, the event of a
 * change, duplicate keys as the 422 of the field sent, and one transaction for all of it.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { writeDocument, type DocumentWrite } from '../../../src/components/documents/document-writes.js';
import { InputError } from '../../../src/platform/errors.js';
import { nowDb } from '../../../src/kernel/time.js';
import { createWorld, unique, type World } from '../../helpers/factories.js';
import { harness, type Harness } from '../../helpers/harness.js';
import { eventsOf } from '../../fixtures/probes.js';

interface Row {
  id: number;
  company_id: number;
  article_code: string;
  description: string;
}

describe('writeDocument', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const insert = async (tx: Knex, fields: { code: string; id?: number; description?: string }): Promise<number> => {
    const now = nowDb();
    const row = { company_id: world.client.id, article_code: fields.code, description: fields.description ?? 'Written', um3pl: 'BUC', created_at: now, updated_at: now };
    await tx('articles').insert(fields.id === undefined ? row : { ...row, id: fields.id });
    return (await tx('articles').where({ company_id: world.client.id, article_code: fields.code }).first()).id as number;
  };
  const write = (work: DocumentWrite<Row>['work'], idField?: string): Promise<Row> =>
    writeDocument(h.db, {
      type: 'article.created',
      codeField: 'article_code',
      ...(idField ? { idField } : {}),
      work,
      reread: async (tx, id) => (await tx('articles').select('id', 'company_id', 'article_code', 'description').where('id', id).first()) as Row,
      companyOf: (row) => row.company_id,
    });
  const stored = (code: string) => h.db('articles').where({ company_id: world.client.id, article_code: code }).first();
  const refusal = async (promise: Promise<unknown>): Promise<InputError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(InputError);
    return error as InputError;
  };

  it('When the work answers a bare id, Then the resource is re-read in its transaction, answered, and its event recorded with it', async () => {
    const code = unique('WD-');
    const row = await write(async (tx) => {
      const id = await insert(tx, { code });
      await tx('articles').where('id', id).update({ description: 'Changed after the insert' });
      return id;
    });
    expect(row).to.deep.include({ company_id: world.client.id, article_code: code, description: 'Changed after the insert' });
    expect(await eventsOf(h.db, world.client.id, 'article.created', row.id)).to.deep.equal([row]);
  });

  it('When the work says nothing changed, Then the resource is answered and no event recorded', async () => {
    const code = unique('WD-');
    const id = await insert(h.db, { code });
    const row = await write(async () => ({ id, changed: false }));
    expect(row.article_code).to.equal(code);
    expect(await eventsOf(h.db, world.client.id, 'article.created', id)).to.deep.equal([]);
  });

  it('When the work throws after writing, Then nothing of it stays and no event is recorded', async () => {
    const code = unique('WD-');
    const boom = new Error('after the first statement');
    const error = await write(async (tx) => {
      await insert(tx, { code });
      throw boom;
    }).catch((e: unknown) => e);
    expect(error).to.equal(boom);
    expect(await stored(code)).to.equal(undefined);
  });

  it("When the work's insert meets the client's code taken (a lost race), Then it is a 422 on the code field, as the up-front check words it", async () => {
    const code = unique('WD-');
    await insert(h.db, { code });
    const error = await refusal(write((tx) => insert(tx, { code })));
    expect(error.errors).to.deep.equal({ article_code: ['The article_code has already been taken for this client.'] });
  });

  it('When the insert meets a chosen id taken and the write names its id field, Then it is a 422 on that field', async () => {
    const error = await refusal(write((tx) => insert(tx, { code: unique('WD-'), id: world.articles.otherClient.id }), 'id'));
    expect(error.errors).to.deep.equal({ id: ['The id has already been taken.'] });
  });

  it("When called inside the caller's transaction, Then the write and its event commit or roll back with it", async () => {
    const kept = unique('WD-K-');
    const dropped = unique('WD-D-');
    await h.db.transaction(async (tx) => {
      await writeDocument(tx, {
        type: 'article.created',
        codeField: 'article_code',
        work: (inner) => {
          expect(inner).to.equal(tx);
          return insert(inner, { code: kept });
        },
        reread: async (inner, id) => (await inner('articles').where('id', id).first()) as Row,
        companyOf: (row) => row.company_id,
      });
    });
    const rolledBack = await h.db
      .transaction(async (tx) => {
        await writeDocument(tx, {
          type: 'article.created',
          codeField: 'article_code',
          work: (inner) => insert(inner, { code: dropped }),
          reread: async (inner, id) => (await inner('articles').where('id', id).first()) as Row,
          companyOf: (row) => row.company_id,
        });
        throw new Error('the caller gives up');
      })
      .catch((e: unknown) => (e as Error).message);
    expect(rolledBack).to.equal('the caller gives up');
    const keptRow = await stored(kept);
    expect(await eventsOf(h.db, world.client.id, 'article.created', keptRow.id)).to.have.length(1);
    expect(await stored(dropped)).to.equal(undefined);
  });
});
