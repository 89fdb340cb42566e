/** The demo data of `make run`: its logins work and show what the README promises. */
import { expect } from 'chai';
import { buildApp, type Harness } from './helpers/harness.js';
import { api } from './helpers/api.js';
import { createScratchDatabase, type TestDatabase } from './helpers/database.js';
import { migrateLatest } from '../db/migrations/index.js';
import { DEMO_LOGINS, DEMO_PASSWORD, seedDemo } from '../db/seeds/demo/demo.js';

describe('Demo data', () => {
  let scratch: TestDatabase;
  let h: Harness;
  const tokens: Record<string, string> = {};

  before(async () => {
    scratch = await createScratchDatabase();
    await migrateLatest(scratch.db);
    expect(await seedDemo(scratch.db)).to.equal(true);
    h = await buildApp({ deps: { db: scratch.db } });
    for (const { email } of DEMO_LOGINS) {
      const res = await api(h.app).post('/api/auth/token').send({ email, password: DEMO_PASSWORD }).expect(200);
      tokens[email] = res.body.token;
    }
  });

  after(async () => {
    await scratch.close();
  });

  const as = (email: string, company?: number) => api(h.app, { token: tokens[email], company });

  it('When seeded twice, Then the second time changes nothing', async () => {
    expect(await seedDemo(scratch.db)).to.equal(false);
    const companies = await scratch.db('companies').count({ n: '*' }).first();
    expect(Number(companies!.n)).to.equal(3);
  });

  it('When ops@demo.test lists companies and clients, Then it sees Demo Logistics with Acme Foods and Globex Retail', async () => {
    const companies = await as('ops@demo.test').get('/api/companies').expect(200);
    expect(companies.body.data.map((c: { name: string }) => c.name)).to.deep.equal(['Demo Logistics', 'Acme Foods', 'Globex Retail']);
    const clients = await as('ops@demo.test').get('/api/clients').expect(200);
    expect(clients.body.data.map((c: { id: number }) => c.id)).to.deep.equal([2, 3]);
  });

  it('When Acme users read, Then they see two warehouses and Acme partners of both types', async () => {
    const warehouses = await as('acme.viewer@demo.test').get('/api/warehouses').expect(200);
    expect(warehouses.body.data.map((w: { code: string }) => w.code)).to.deep.equal(['WH-BUC', 'WH-CLJ']);
    const partners = await as('acme.operator@demo.test').get('/api/partners').expect(200);
    expect(partners.body.data.map((p: { type: string; client_3pl_id: number }) => [p.type, p.client_3pl_id])).to.deep.equal([
      ['supplier', 2],
      ['client', 2],
    ]);
  });

  it('When Globex uses the returns module, Then it answers 403 because that module is off', async () => {
    await as('globex.admin@demo.test', 3)
      .get('/api/returns')
      .expect(403, { message: 'The returns module is not active for company Globex Retail.' });
  });

  it('When the viewer writes, Then it answers 403; the super-admin sees every company', async () => {
    await as('acme.viewer@demo.test', 2).post('/api/articles').send({}).expect(403);
    const all = await as('admin@demo.test').get('/api/companies').expect(200);
    expect(all.body.meta.total).to.equal(3);
  });

  it('When Acme lists its articles, Then it sees its five and none of Globex; its yogurt tracks lots and expiry dates', async () => {
    const res = await as('acme.viewer@demo.test').get('/api/articles').expect(200);
    expect(res.body.data.map((a: { article_code: string }) => a.article_code).sort()).to.deep.equal(['ACME-CHS-KG', 'ACME-FLR-1KG', 'ACME-OIL-5L', 'ACME-TOM-400', 'ACME-YOG-125']);
    const tracked = res.body.data.filter((a: { lot_tracked: boolean; expiry_tracked: boolean }) => a.lot_tracked && a.expiry_tracked);
    expect(tracked.map((a: { article_code: string }) => a.article_code)).to.deep.equal(['ACME-YOG-125']);
  });

  it('When Acme reads its stock and orders, Then the demo reception shows: 120 of 240 BUC received, 25.5 KG in full, 4 KG of it shipped and 6 reserved', async () => {
    const orders = await as('acme.viewer@demo.test').get('/api/purchase-orders').expect(200);
    expect(orders.body.data.map((o: { internal_code: string; status: string }) => [o.internal_code, o.status])).to.deep.equal([
      ['PO-ACME-0002', 'received'],
      ['PO-ACME-0001', 'partially_received'],
    ]);
    const stock = await as('acme.viewer@demo.test').get('/api/stock').expect(200);
    type Row = { article_code: string; lot: string | null; quantity: number; reserved: number; available: number };
    expect(stock.body.data.map((s: Row) => [s.article_code, s.lot, s.quantity, s.reserved, s.available])).to.deep.equal([
      ['ACME-TOM-400', null, 120, 20, 100],
      ['ACME-CHS-KG', null, 21.5, 6, 15.5],
      ['ACME-YOG-125', 'YOG-A1', 48, 48, 0],
      ['ACME-YOG-125', 'YOG-B2', 96, 12, 84],
    ]);
    const sales = await as('acme.viewer@demo.test').get('/api/sales-orders').expect(200);
    expect(sales.body.data.map((o: { internal_code: string; status: string }) => [o.internal_code, o.status])).to.deep.equal([
      ['SO-ACME-0003', 'new'],
      ['SO-ACME-0002', 'partially_delivered'],
      ['SO-ACME-0001', 'new'],
    ]);
    const shipments = await as('acme.viewer@demo.test').get('/api/shipments').expect(200);
    expect(shipments.body.data.map((s: { carrier: string; tracking_number: string; items: Array<{ quantity_um3pl: number }> }) => [s.carrier, s.tracking_number, s.items[0]!.quantity_um3pl])).to.deep.equal([
      ['DHL', 'JD014600006281230704', 4],
    ]);
    const globex = await as('globex.admin@demo.test').get('/api/purchase-orders').expect(200);
    expect(globex.body.data[0].status).to.equal('received');
  });

  it('When the unit catalogue is read, Then BUC, CUT and PAL are whole-number units and KG and L are not', async () => {
    const units = await scratch.db('units').select('code', 'integer_only').orderBy('code');
    expect(units.map((u) => [u.code, Boolean(u.integer_only)])).to.deep.equal([
      ['BUC', true],
      ['CUT', true],
      ['KG', false],
      ['L', false],
      ['PAL', true],
    ]);
  });
});
