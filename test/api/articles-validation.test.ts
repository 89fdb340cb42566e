/** POST /api/articles: bodies and headers that break the schema are 422s naming the field, and store nothing. */
import { expect } from 'chai';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { countEvents } from '../fixtures/probes.js';

describe('POST /api/articles (bad input)', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const valid = (): Record<string, unknown> => ({ article_code: unique('BAD-'), description: 'd', um3pl: 'BUC' });

  /** Posts `body`, expects a 422 with exactly `errors` (those in `patterns` matched instead), and checks that no article and no event appeared. */
  async function refused(
    body: unknown,
    errors: Record<string, string[]>,
    patterns: Record<string, RegExp> = {},
    headers: Record<string, string> = {},
  ): Promise<void> {
    const [articlesBefore, eventsBefore] = await Promise.all([count('articles'), countEvents(h.db, { companyId: world.client.id })]);
    const req = world.as('operator').post('/api/articles');
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    const res = await req.send(body as object).expect(422);
    expect(res.body.message).to.be.a('string').and.not.equal('');
    const { ...rest } = res.body.errors as Record<string, string[]>;
    for (const [field, pattern] of Object.entries(patterns)) {
      expect(rest[field], field).to.have.length(1);
      expect(rest[field]![0]).to.match(pattern);
      delete rest[field];
    }
    expect(rest).to.deep.equal(errors);
    expect(await count('articles')).to.equal(articlesBefore);
    expect(await countEvents(h.db, { companyId: world.client.id })).to.equal(eventsBefore);
  }

  async function count(table: string): Promise<number> {
    return Number((await h.db(table).where('company_id', world.client.id).count({ n: '*' }).first())!.n);
  }

  it('When the required fields are missing, Then it answers 422 naming each', async () => {
    await refused({}, {
      article_code: ['The article_code field is required.'],
      description: ['The description field is required.'],
      um3pl: ['The um3pl field is required.'],
    });
  });

  it('When the body carries company_id, Then it answers 422 on company_id', async () => {
    await refused({ ...valid(), company_id: world.client.id }, { company_id: ['The company_id field is not allowed.'] });
  });

  it('When the body carries fields the create does not take, Then it answers 422 naming each', async () => {
    await refused({ ...valid(), barcode: '1', created_at: '2026-01-01T00:00:00Z' }, {
      barcode: ['The barcode field is not allowed.'],
      created_at: ['The created_at field is not allowed.'],
    });
  });

  it('When the Idempotency-Key is 300 characters long, Then it answers 422 keyed Idempotency-Key', async () => {
    await refused(valid(), { 'Idempotency-Key': ['The Idempotency-Key header must not be longer than 255 characters.'] }, {}, { 'Idempotency-Key': 'k'.repeat(300) });
  });

  it('When strings are over their maxLength, Then it answers 422 on each', async () => {
    await refused(
      { article_code: 'C'.repeat(65), description: 'd'.repeat(1001), name: 'n'.repeat(256), um3pl: 'U'.repeat(17), um3pl_barcode: '1'.repeat(65) },
      {
        article_code: ['The article_code field must not be longer than 64 characters.'],
        description: ['The description field must not be longer than 1000 characters.'],
        name: ['The name field must not be longer than 255 characters.'],
        um3pl: ['The um3pl field must not be longer than 16 characters.'],
        um3pl_barcode: ['The um3pl_barcode field must not be longer than 64 characters.'],
      },
    );
  });

  it('When strings are exactly at their maxLength, Then the article is created', async () => {
    const code = `${unique('MAX-')}`.padEnd(64, 'x');
    const res = await world.as('operator').post('/api/articles')
      .send({ article_code: code, description: 'd'.repeat(1000), name: 'n'.repeat(255), um3pl: 'KG', um3pl_barcode: '1'.repeat(64) })
      .expect(201);
    expect(res.body.data.article_code).to.equal(code);
    expect(res.body.data.description).to.have.length(1000);
    expect(res.body.data.barcode).to.equal('1'.repeat(64));
  });

  it('When a code holds a control character (a tab from a CSV export, NUL, a C1 character), Then it answers 422 saying so; a bulk item is refused alone', async () => {
    const message = 'The article_code field must not hold control characters (a tab, a line break, NUL).';
    for (const code of ['A\tB', 'LINE\n', 'A\u0085B']) await refused({ ...valid(), article_code: code }, { article_code: [message] });
    // NUL, as in any text of a body (app-request-bodies).
    await refused({ ...valid(), article_code: 'A\u0000' }, { article_code: ['The article_code field must not hold the NUL character (\\u0000).'] });
    const res = await world.as('operator').post('/api/articles/bulk').send({ items: [valid(), { ...valid(), article_code: 'A\tB' }] }).expect(200);
    expect(res.body.meta).to.include({ created: 1, failed: 1 });
    expect(res.body.data[1].errors).to.deep.equal({ article_code: [message] });
  });

  it('When required strings are empty, Then it answers 422 on each', async () => {
    await refused({ article_code: '', description: '', um3pl: '' }, {
      article_code: ['The article_code field must not be empty.'],
      description: ['The description field must not be empty.'],
      um3pl: ['The um3pl field must not be empty.'],
    });
  });

  it('When fields have the wrong types, Then it answers 422 on each, without coercing', async () => {
    await refused(
      { article_code: 123, description: true, um3pl: ['BUC'], integer_only_um3pl_quantity: 'yes', integer_only: 1, active: 'false', client_3pl_id: String(world.client.id), um3pl_barcode: 5940000000001 },
      {
        article_code: ['The article_code field must be a string.'],
        description: ['The description field must be a string.'],
        um3pl: ['The um3pl field must be a string.'],
        integer_only_um3pl_quantity: ['The integer_only_um3pl_quantity field must be true or false.'],
        integer_only: ['The integer_only field must be true or false.'],
        active: ['The active field must be true or false.'],
        client_3pl_id: ['The client_3pl_id field must be an integer.'],
      },
      { um3pl_barcode: /^The um3pl_barcode field must be a string( or null)?\.$/ },
    );
  });

  it('When id or client_3pl_id is not a positive integer, Then it answers 422 on each', async () => {
    await refused({ ...valid(), id: 1.5, client_3pl_id: 0 }, {
      id: ['The id field must be an integer.'],
      client_3pl_id: ['The client_3pl_id field must be at least 1.'],
    });
  });

  it('When the body is a JSON array, Then it answers 422', async () => {
    const res = await world.as('operator').post('/api/articles').send([valid()]).expect(422);
    expect(res.body.errors).to.have.property('body');
  });

  it('When the body is not valid JSON, Then it answers 400', async () => {
    const res = await world.as('operator').post('/api/articles').set('Content-Type', 'application/json').send('{"article_code": ').expect(400);
    expect(res.body.message).to.be.a('string').and.not.match(/at position|SyntaxError|node_modules/);
  });
});
