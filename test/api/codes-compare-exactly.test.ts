/**
 * Text compares the same on both engines. Codes, lots and references are exact: MySQL/MariaDB's
 * padded binary collation took 'TS-CODE ' for 'TS-CODE' (migration 016). Unit codes match with
 * their ASCII letters in either case and nothing else (MariaDB's collation also took `BÜC` for
 * BUC), in the catalogue and on document lines alike. A search ignores case, Unicode's included, and nothing else (SQLite folded ASCII only,
 * MariaDB's collation also ignored accents and took every emoji for every other).
 */
import { expect } from 'chai';
import * as build from '../../db/seeds/builders.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { receiveLots, trackedArticle } from '../fixtures/lots.js';
import { listArticles } from '../../src/components/articles/articles.repository.js';
import { createDb, engineOf } from '../../src/platform/db/database.js';
import type { CompanyScope } from '../../src/kernel/company-scope.js';

describe('Codes and searches compare the same on both engines', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const createArticle = (fields: Record<string, unknown>) => world.as('operator').post('/api/articles').send({ description: 'Article', um3pl: 'BUC', ...fields });
  const byCode = (code: string) => `/api/articles/by-code/${encodeURIComponent(code)}`;

  it('When two article codes differ only by a trailing space, Then both are created, and a by-code write and a bulk item change the one named', async () => {
    const code = unique('TS-');
    const bare = (await createArticle({ article_code: code, description: 'bare' }).expect(201)).body.data;
    const padded = (await createArticle({ article_code: `${code} `, description: 'padded' }).expect(201)).body.data;
    expect(padded.article_code).to.equal(`${code} `);
    await world.as('operator').patch(byCode(`${code} `)).send({ description: 'padded, patched' }).expect(200);
    expect((await h.db('articles').where('id', bare.id).first()).description).to.equal('bare');
    expect((await h.db('articles').where('id', padded.id).first()).description).to.equal('padded, patched');
    const bulk = unique('BK-');
    const res = await world.as('operator').post('/api/articles/bulk').send({
      items: [
        { article_code: bulk, description: 'bulk bare', um3pl: 'BUC' },
        { article_code: `${bulk} `, description: 'bulk padded', um3pl: 'BUC' },
        { article_code: `${code} `, description: 'padded, bulk', um3pl: 'BUC' },
      ],
    }).expect(200);
    expect(res.body.meta).to.include({ created: 2, updated: 1, failed: 0 });
    expect(res.body.data[2]).to.include({ status: 'updated', id: padded.id });
    expect((await h.db('articles').where('id', bare.id).first()).description).to.equal('bare');
  });

  it('When internal codes differ only by a trailing space, Then both orders are created and the filter finds each by itself', async () => {
    const code = unique('PO-TS-');
    const order = (internal: string) =>
      world.as('operator').post('/api/purchase-orders').send({ partner_id: world.partners.supplier, internal_code: internal, items: [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }] });
    const bare = (await order(code).expect(201)).body.data;
    const padded = (await order(`${code} `).expect(201)).body.data;
    const found = async (internal: string) => ((await world.as('viewer').get(`/api/purchase-orders?internal_code=${encodeURIComponent(internal)}`).expect(200)).body.data as Array<{ id: number }>).map((o) => o.id);
    expect(await found(code)).to.deep.equal([bare.id]);
    expect(await found(`${code} `)).to.deep.equal([padded.id]);
    // A control character is refused, as in lots and article codes (a tab from a CSV export).
    const tabbed = await order(`${code}\t`).expect(422);
    expect(tabbed.body.errors).to.deep.equal({ internal_code: ['The internal_code field must not hold control characters (a tab, a line break, NUL).'] });
  });

  it('When a lot filter has a trailing space, Then it finds no stock of the lot without it', async () => {
    const article = await trackedArticle(world);
    await receiveLots(world, article, [{ quantity: 5, lot: 'EXACT-1', expiry_date: '2030-01-31' }]);
    const rows = async (lot: string) => ((await world.as('viewer').get(`/api/stock?article_id=${article.id}&lot=${encodeURIComponent(lot)}`).expect(200)).body.data as unknown[]).length;
    expect(await rows('EXACT-1')).to.equal(1);
    expect(await rows('EXACT-1 ')).to.equal(0);
  });

  it('When a unit code differs from the catalogue\'s by an accent or a trailing space, Then it is not that unit (422); by ASCII case only, it is', async () => {
    for (const um3pl of ['BÜC', 'BUC ', 'bùc']) {
      const res = await createArticle({ article_code: unique('UM-'), um3pl }).expect(422);
      expect(res.body.errors, um3pl).to.deep.equal({ um3pl: [`The unit ${JSON.stringify(um3pl)} is not in the unit catalogue. Known units: BUC, KG.`] });
    }
    const hidden = await createArticle({ article_code: unique('UM-'), um3pl: 'BUC\u200b' }).expect(422);
    expect(hidden.body.errors).to.deep.equal({ um3pl: ['The unit "BUC\\u200B" is not in the unit catalogue. Known units: BUC, KG.'] });
    expect((await createArticle({ article_code: unique('UM-'), um3pl: 'bUc' }).expect(201)).body.data.um3pl).to.equal('BUC');
  });

  it('When the catalogue has BüC (decimals) and BÜC (whole), Then each unit keeps its own whole-number rule on document lines, and a line names its article\'s unit by the same rule', async () => {
    const other = await createWorld(h.app, h.db);
    await build.insertUnit(h.db, { company_id: other.provider.id, code: 'BüC', name: 'Decimal piece', integer_only: false });
    await build.insertUnit(h.db, { company_id: other.provider.id, code: 'BÜC', name: 'Whole piece', integer_only: true });
    const article = async (um3pl: string) => (await other.as('operator').post('/api/articles').send({ article_code: unique('UM-'), description: um3pl, um3pl }).expect(201)).body.data as { id: number; um3pl: string };
    const [decimal, whole] = [await article('BüC'), await article('BÜC')];
    expect([decimal.um3pl, whole.um3pl]).to.deep.equal(['BüC', 'BÜC']);
    const order = (items: Array<Record<string, unknown>>) => other.as('operator').post('/api/purchase-orders').send({ partner_id: other.partners.supplier, internal_code: unique('PO-UM-'), items });
    await order([{ article_id: decimal.id, um3pl: 'BüC', quantity_um3pl: 1.5 }, { article_id: whole.id, um3pl: 'bÜc', quantity_um3pl: 2 }]).expect(201);
    const refused = await order([
      { article_id: whole.id, um3pl: 'BÜC', quantity_um3pl: 1.5 },
      { article_id: decimal.id, um3pl: 'BÜC', quantity_um3pl: 1 },
      { article_id: whole.id, um3pl: 'BüC', quantity_um3pl: 1 },
    ]).expect(422);
    expect(refused.body.errors).to.deep.equal({
      'items.0.quantity_um3pl': ['The quantity must be a whole number: unit BÜC is counted in whole units.'],
      'items.1.um3pl': ["The unit must be the article's unit, BüC."],
      'items.2.um3pl': ["The unit must be the article's unit, BÜC."],
    });
  });

  it('When a search has letters beyond ASCII, Then case is ignored and accents are not; one emoji does not find another', async () => {
    const tag = unique('Ö').toUpperCase();
    const oil = (await createArticle({ article_code: `${tag}-ÖL`, description: `Café crème ${tag} 🍓` }).expect(201)).body.data;
    const search = async (term: string) => ((await world.as('viewer').get(`/api/articles?search=${encodeURIComponent(term)}`).expect(200)).body.data as Array<{ id: number }>).map((a) => a.id);
    for (const term of [`${tag}-ÖL`, `${tag.toLowerCase()}-öl`, 'CRÈME', `crème ${tag.toLowerCase()}`, `${tag} 🍓`]) expect(await search(term), term).to.deep.equal([oil.id]);
    for (const term of [`${tag}-OL`, `cafe crème ${tag}`, `${tag} 😀`]) expect(await search(term), term).to.deep.equal([]);
  });

  it('When a search meets the letters JavaScript and MariaDB lower differently (a final Σ, a dotted İ), Then the text as stored and its lower case find it on both engines', async () => {
    const tag = unique('G').toUpperCase();
    const greek = (await createArticle({ article_code: `İSTANBUL-${tag}`, description: `ΣΟΦΙΑ ΟΔΟΣ ${tag}` }).expect(201)).body.data;
    const search = async (term: string) => ((await world.as('viewer').get(`/api/articles?search=${encodeURIComponent(term)}`).expect(200)).body.data as Array<{ id: number }>).map((a) => a.id);
    const lowerTag = tag.toLowerCase();
    for (const term of [`İSTANBUL-${tag}`, `istanbul-${lowerTag}`, `i̇stanbul-${lowerTag}`, `ΟΔΟΣ ${tag}`, `οδος ${lowerTag}`, `οδοσ ${lowerTag}`, `σοφια οδος`]) {
      expect(await search(term), term).to.deep.equal([greek.id]);
    }
    // The Kelvin sign's lower case is an ASCII k: an ASCII term finds it too.
    const kelvin = (await createArticle({ article_code: `\u212a-${tag}`, description: 'Kelvin' }).expect(201)).body.data;
    expect(await search(`k-${lowerTag}`)).to.deep.equal([kelvin.id]);
  });
  it('When stored text holds capitals whose lower case MariaDB\'s column collation does not know (ẞ, Ⱥ, Georgian Ⴀ, Cherokee Ꭰ), Then the exact text and its lower case find it on both engines', async () => {
    const tag = unique('S').toUpperCase();
    const lowerTag = tag.toLowerCase();
    const cup = (await createArticle({ article_code: `CUP-${tag}`, description: `GROẞE TASSE Ⱥ Ⴀ Ꭰ ${tag}` }).expect(201)).body.data;
    const search = async (term: string) => ((await world.as('viewer').get(`/api/articles?search=${encodeURIComponent(term)}`).expect(200)).body.data as Array<{ id: number }>).map((a) => a.id);
    for (const term of [`GROẞE TASSE Ⱥ Ⴀ Ꭰ ${tag}`, `große tasse ⱥ ⴀ ꭰ ${lowerTag}`, `ⱥ ⴀ ꭰ ${tag}`]) expect(await search(term), term).to.deep.equal([cup.id]);
    expect(await search(`grosse tasse ⱥ ⴀ ꭰ ${lowerTag}`)).to.deep.equal([]);
  });
  it('When a pool\'s first statement is a search beyond ASCII (MariaDB: before anything asked the server its collations), Then it folds as Unicode does', async () => {
    const tag = unique('F').toUpperCase();
    const mug = (await createArticle({ article_code: `MUG-${tag}`, description: `GROẞE BECHER ${tag}` }).expect(201)).body.data;
    const connection = h.db.client.config.connection as { host?: string; port?: number; user?: string; database?: string };
    // A pool of its own on MariaDB, whose first statement is the search; SQLite's is the run's (in memory).
    const db = engineOf(h.db) === 'mysql' ? createDb(`mysql://${connection.user}@${connection.host}:${connection.port}/${connection.database}`, { poolMax: 1 }) : h.db;
    try {
      const scope: CompanyScope = { kind: 'company', companyId: world.client.id, companyName: 'client', companyType: 'client', providerId: world.provider.id, clientIds: [world.client.id] };
      const found = await listArticles(db, scope, `große becher ${tag.toLowerCase()}`, { page: 1, perPage: 25 });
      expect(found.rows.map((a) => a.id)).to.deep.equal([mug.id]);
    } finally {
      if (db !== h.db) await db.destroy();
    }
  });
});
