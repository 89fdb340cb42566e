/**
 * GraphQL's reads of one partner, warehouse, purchase order, reception, return, stock adjustment
 * or stock transfer by id: what REST's
 * GET of the same id answers, null for an id out of scope (another client's) or unknown, BAD_USER_INPUT
 * for an id below 1, FORBIDDEN when the document's module is off.
 */
import { expect } from 'chai';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { receivedOrder } from '../fixtures/receptions.js';
import { outboundDocuments } from '../fixtures/returns.js';
import { clientAdjustment } from '../fixtures/stock-adjustments.js';
import { clientTransfer } from '../fixtures/stock-transfers.js';
import type { ModuleSlug } from '../../src/kernel/access.js';

interface Case {
  field: string;
  rest: string;
  fields: string[];
  own: (w: World) => Promise<number>;
  other: (w: World) => Promise<number>;
  module?: ModuleSlug;
}

const CASES: Case[] = [
  { field: 'partner', rest: '/api/partners', fields: ['id', 'client_3pl_id', 'type', 'code', 'name', 'active', 'updated_at'], own: async (w) => w.partners.supplier, other: async (w) => w.partners.otherClientSupplier },
  { field: 'warehouse', rest: '/api/warehouses', fields: ['id', 'company_id', 'code', 'name', 'active', 'updated_at'], own: async (w) => w.warehouses[0]!, other: async () => 0x7fffffff },
  { field: 'purchase_order', rest: '/api/purchase-orders', fields: ['id', 'client_3pl_id', 'partner_id', 'internal_code', 'status', 'updated_at'], own: async (w) => (await receivedOrder(w, w.client.id)).orderId, other: async (w) => (await receivedOrder(w, w.otherClient.id)).orderId, module: 'inbound' },
  { field: 'reception', rest: '/api/receptions', fields: ['id', 'client_3pl_id', 'purchase_order_id', 'warehouse_id', 'updated_at'], own: async (w) => (await receivedOrder(w, w.client.id)).receptionId, other: async (w) => (await receivedOrder(w, w.otherClient.id)).receptionId, module: 'inbound' },
  { field: 'return', rest: '/api/returns', fields: ['id', 'client_3pl_id', 'partner_id', 'warehouse_id', 'reason', 'updated_at'], own: async (w) => (await outboundDocuments(w, w.client.id)).returnId, other: async (w) => (await outboundDocuments(w, w.otherClient.id)).returnId, module: 'returns' },
  { field: 'stock_adjustment', rest: '/api/stock/adjustments', fields: ['id', 'client_3pl_id', 'warehouse_id', 'reason', 'note', 'internal_code', 'created_at', 'updated_at'], own: (w) => clientAdjustment(w, w.client.id), other: (w) => clientAdjustment(w, w.otherClient.id), module: 'stock' },
  { field: 'stock_transfer', rest: '/api/stock/transfers', fields: ['id', 'client_3pl_id', 'note', 'internal_code', 'created_at', 'updated_at'], own: (w) => clientTransfer(w, w.client.id), other: (w) => clientTransfer(w, w.otherClient.id), module: 'stock' },
];

describe('POST /graphql: one partner, warehouse, purchase order, reception, return, stock adjustment or stock transfer by id', () => {
  let h: Harness;
  let world: World;

  const query = (actor: 'viewer', c: Case, id: number, w = world) =>
    w.as(actor).post('/graphql').send({ query: `query($id: Int!) { ${c.field}(id: $id) { ${c.fields.join(' ')} } }`, variables: { id } });

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  for (const c of CASES) {
    it(`When ${c.field}(id) is asked, Then it answers what GET ${c.rest}/{id} answers; null for another client's or an unknown id; BAD_USER_INPUT for id 0`, async () => {
      const id = await c.own(world);
      const rest = (await world.as('viewer').get(`${c.rest}/${id}`).expect(200)).body.data as Record<string, unknown>;
      const got = await query('viewer', c, id).expect(200);
      expect(got.body.errors, JSON.stringify(got.body.errors)).to.equal(undefined);
      expect(got.body.data[c.field]).to.deep.equal(Object.fromEntries(c.fields.map((f) => [f, rest[f]])));

      for (const outOfScope of [await c.other(world), 2_000_000_000]) {
        const none = await query('viewer', c, outOfScope).expect(200);
        expect([none.body.errors, none.body.data[c.field]], `id ${outOfScope}`).to.deep.equal([undefined, null]);
      }
      const zero = await query('viewer', c, 0).expect(200);
      expect(zero.body.errors[0].extensions).to.deep.include({ code: 'BAD_USER_INPUT', errors: { id: ['The id argument must be at least 1.'] } });
    });
  }

  for (const c of CASES.filter((x) => x.module !== undefined)) {
    it(`When the ${c.module} module is off, Then ${c.field}(id) answers FORBIDDEN (HTTP 403) and refuses the whole query: no data, not even the articles asked beside it`, async () => {
      const off = await createWorld(h.app, h.db, { modulesOff: [c.module!] });
      const res = await query('viewer', c, 1, off).expect(403);
      expect(res.body.errors[0].extensions.code).to.equal('FORBIDDEN');
      expect(res.body.data).to.equal(null);
      const beside = await off.as('viewer').post('/graphql').send({ query: `{ articles(limit: 1) { id } ${c.field}(id: 1) { id } }` }).expect(403);
      expect([beside.body.data, beside.body.errors[0].extensions.code]).to.deep.equal([null, 'FORBIDDEN']);
    });
  }
});
