/**
 * Unit rules under stock: an article's unit cannot change while it has stock (on hand or reserved)
 * or a line on an open document, and its whole-number flag cannot turn on while any of that holds a
 * fraction; the 422 is keyed by the field as the client named it (`um3pl`, the master-data aliases
 * `uom` / `unit`, `integer_only`). Through PUT, PATCH by code and the master-data integration.
 */
import { expect } from 'chai';
import type { Response } from 'supertest';
import { api, type Api } from '../helpers/api.js';
import { kgArticle, freshArticle, type Article } from '../fixtures/articles.js';
import { eventsOf } from '../fixtures/probes.js';
import { createOrder } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { buc, createSalesOrder, moveThrough } from '../fixtures/sales-orders.js';
import { receiveStock } from '../fixtures/stock.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { harness, MDM_TEST_TOKEN, type Harness } from '../helpers/harness.js';

describe('Unit rules under stock', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  const mdm = (): Api => api(h.app, { token: MDM_TEST_TOKEN, company: world.client.id });
  const put = (id: number, body: Record<string, unknown>) => world.as('operator').put(`/api/articles/${id}`).send(body);
  const patch = (code: string, body: Record<string, unknown>) => world.as('operator').patch(`/api/articles/by-code/${encodeURIComponent(code)}`).send(body);
  const mdmPatch = (code: string, body: Record<string, unknown>) => mdm().patch(`/api/integrations/mdm/articles/by-code/${encodeURIComponent(code)}`).send(body);
  const unitOf = async (id: number) => (await h.db('articles').where('id', id).first()).um3pl as string;
  const unitRefusal = (a: Article, detail: string) =>
    `The unit of article ${a.code} cannot change while it has stock or lines on open documents (${detail}): they would be read in the new unit. Bring its stock to zero and finish or cancel those documents first.`;
  const wholeRefusal = (a: Article, detail: string) => `Article ${a.code} cannot take whole quantities only while its stock or lines on open documents hold fractions (${detail}).`;

  /** A refused write: 422 with exactly `errors`, the article unchanged and no article.updated. */
  async function refused(res: Response, errors: Record<string, string[]>, a: Article, unit: string): Promise<void> {
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.errors).to.deep.equal(errors);
    expect(await unitOf(a.id)).to.equal(unit);
    expect(await eventsOf(h.db, world.client.id, 'article.updated', a.id)).to.deep.equal([]);
  }

  describe('the unit', () => {
    it('When 45 BUC are on hand, Then changing um3pl is a 422 on the field as named through PATCH, PUT and the master-data aliases uom and unit', async () => {
      const a = await freshArticle(world, world.client.id, 'BUC', 'UNIT-');
      await receiveStock(world, a, 45);
      const detail = '45 on hand and 0 reserved';
      await refused(await patch(a.code, { um3pl: 'KG' }), { um3pl: [unitRefusal(a, detail)] }, a, 'BUC');
      await refused(await put(a.id, { um3pl: 'KG', description: 'x' }), { um3pl: [unitRefusal(a, detail)] }, a, 'BUC');
      await refused(await mdmPatch(a.code, { uom: 'KG' }), { uom: [unitRefusal(a, detail)] }, a, 'BUC');
      await refused(await mdmPatch(a.code, { unit: 'kg', title: 'x' }), { unit: [unitRefusal(a, detail)] }, a, 'BUC');
      expect((await h.db('articles').where('id', a.id).first()).name).to.equal(null);
    });

    it('When the only use is an open purchase-order line, Then the unit cannot change; once the order is cancelled it can', async () => {
      const a = await freshArticle(world, world.client.id, 'BUC', 'UNIT-');
      const order = await createOrder(world.as('operator'), world.partners.supplier, [buc(a, 3)]);
      await refused(await put(a.id, { um3pl: 'KG' }), { um3pl: [unitRefusal(a, `lines on purchase order ${order.internal_code}`)] }, a, 'BUC');
      await world.as('operator').put(`/api/purchase-orders/${order.id}`).send({ status: 'cancelled' }).expect(200);
      const res = await put(a.id, { um3pl: 'KG' }).expect(200);
      expect(res.body.data.um3pl).to.equal('KG');
      expect(await eventsOf(h.db, world.client.id, 'article.updated', a.id)).to.deep.equal([res.body.data]);
    });

    it('When an open sales order reserves the article without stock, Then the unit cannot change (the reservation and the line); once it is cancelled it can', async () => {
      const a = await freshArticle(world, world.client.id, 'BUC', 'UNIT-');
      const order = await createSalesOrder(world, [buc(a, 2)]);
      await refused(await mdmPatch(a.code, { uom: 'KG' }), { uom: [unitRefusal(a, `0 on hand and 2 reserved; lines on sales order ${order.internal_code}`)] }, a, 'BUC');
      await moveThrough(world, order.id, ['cancelled']);
      await mdmPatch(a.code, { uom: 'KG' }).expect(200);
      expect(await unitOf(a.id)).to.equal('KG');
    });

    it('When the stock went out again and every document is finished, Then the unit can change; a received purchase order and a delivered sales order do not hold it', async () => {
      const a = await freshArticle(world, world.client.id, 'BUC', 'UNIT-');
      await receiveStock(world, a, 4);
      const order = await createSalesOrder(world, [buc(a, 4)]);
      await moveThrough(world, order.id, ['picking', 'picked', 'delivered']);
      const res = await patch(a.code, { um3pl: 'kg' }).expect(200);
      expect(res.body.data.um3pl).to.equal('KG');
    });

    it('When many documents hold the article, Then the message names three and counts the rest', async () => {
      const a = await freshArticle(world, world.client.id, 'BUC', 'UNIT-');
      const orders = [];
      for (let i = 0; i < 5; i++) orders.push(await createOrder(world.as('operator'), world.partners.supplier, [buc(a, 1)]));
      const codes = orders.slice(0, 3).map((o) => `purchase order ${o.internal_code}`).join(', ');
      await refused(await put(a.id, { um3pl: 'KG' }), { um3pl: [unitRefusal(a, `lines on ${codes} and 2 more`)] }, a, 'BUC');
    });

    it('When the unit sent is the unit it has, Then nothing changes and it answers 200 without an event', async () => {
      const a = await freshArticle(world, world.client.id, 'BUC', 'UNIT-');
      await receiveStock(world, a, 1);
      await mdmPatch(a.code, { uom: 'buc' }).expect(200);
      expect(await eventsOf(h.db, world.client.id, 'article.updated', a.id)).to.deep.equal([]);
    });

    it('When the unit sent through an alias is not in the catalogue, Then the 422 is keyed by the alias', async () => {
      const a = await freshArticle(world, world.client.id, 'BUC', 'UNIT-');
      const res = await mdmPatch(a.code, { uom: 'LITRE' }).expect(422);
      expect(res.body.errors).to.deep.equal({ uom: ['The unit "LITRE" is not in the unit catalogue. Known units: BUC, KG.'] });
    });
  });

  describe('the whole-number flag', () => {
    it('When 51.25 KG are on hand, Then turning it on is a 422 on the field as named (integer_only_um3pl_quantity or integer_only); with 51 on hand it turns on', async () => {
      const a = await kgArticle(world, world.client.id);
      await receiveStock(world, a, 51.25, world.warehouses[0], 'KG');
      const message = wholeRefusal(a, '51.25 on hand and 0 reserved');
      await refused(await put(a.id, { integer_only_um3pl_quantity: true }), { integer_only_um3pl_quantity: [message] }, a, 'KG');
      await refused(await put(a.id, { integer_only: true }), { integer_only: [message] }, a, 'KG');
      const order = await createSalesOrder(world, [{ article_id: a.id, um3pl: 'KG', quantity_um3pl: 0.25 }]);
      await moveThrough(world, order.id, ['picking', 'picked', 'delivered']);
      const res = await put(a.id, { integer_only: true }).expect(200);
      expect(res.body.data.integer_only_um3pl_quantity).to.equal(true);
    });

    it('When an open purchase-order line or sales-order line holds a fraction, Then it cannot turn on; whole lines and a partly received whole line do not stop it', async () => {
      const a = await kgArticle(world, world.client.id);
      const po = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: a.id, um3pl: 'KG', quantity_um3pl: 2.5 }]);
      await refused(await put(a.id, { integer_only_um3pl_quantity: true }), { integer_only_um3pl_quantity: [wholeRefusal(a, `lines on purchase order ${po.internal_code}`)] }, a, 'KG');
      await world.as('operator').put(`/api/purchase-orders/${po.id}`).send({ items: [{ article_id: a.id, um3pl: 'KG', quantity_um3pl: 10 }] }).expect(200);
      const so = await createSalesOrder(world, [{ article_id: a.id, um3pl: 'KG', quantity_um3pl: '0,5' }]);
      await refused(await put(a.id, { integer_only_um3pl_quantity: true }), { integer_only_um3pl_quantity: [wholeRefusal(a, `0 on hand and 0.5 reserved; lines on sales order ${so.internal_code}`)] }, a, 'KG');
      await moveThrough(world, so.id, ['cancelled']);
      await put(a.id, { integer_only_um3pl_quantity: true }).expect(200);
    });

    it('When a purchase-order line of 10 received 2.5, Then the remaining fraction keeps the flag off', async () => {
      const a = await kgArticle(world, world.client.id);
      const po = await createOrder(world.as('operator'), world.partners.supplier, [{ article_id: a.id, um3pl: 'KG', quantity_um3pl: 10 }]);
      await receive(world.as('operator'), po.id, world.warehouses[1]!, [[po.items[0]!.id, 2.5]]);
      const res = await put(a.id, { integer_only_um3pl_quantity: true }).expect(422);
      expect(res.body.errors).to.deep.equal({ integer_only_um3pl_quantity: [wholeRefusal(a, `2.5 on hand and 0 reserved; lines on purchase order ${po.internal_code}`)] });
    });

    it('When the unit and the flag change together, Then both problems are answered at once', async () => {
      const a = await kgArticle(world, world.client.id);
      await receiveStock(world, a, 1.5, world.warehouses[0], 'KG');
      const res = await put(a.id, { um3pl: 'BUC', integer_only: true }).expect(422);
      expect(res.body.errors).to.deep.equal({ um3pl: [unitRefusal(a, '1.5 on hand and 0 reserved')], integer_only: [wholeRefusal(a, '1.5 on hand and 0 reserved')] });
    });
  });

  describe('races', () => {
    const pairs = 12;

    it('When a unit change races a purchase order and a sales order of the same unused article, Then never both: either the change wins and the order is a 422 on the unit, or the order wins and the change is refused', async function () {
      this.timeout(120_000);
      const outcomes = await Promise.all(Array.from({ length: pairs }, async (_, i) => {
        const a = await freshArticle(world, world.client.id, 'BUC', 'RACE-UNIT-');
        const order = () => (i % 2
          ? world.as('operator').post('/api/purchase-orders').send({ partner_id: world.partners.supplier, internal_code: unique('PO-'), items: [buc(a, 1)] })
          : world.as('operator').post('/api/sales-orders').send({ partner_id: world.partners.client, source_warehouse_id: world.warehouses[0], internal_code: unique('SO-'), items: [buc(a, 1)] }));
        const [change, created] = i % 4 < 2 ? await Promise.all([put(a.id, { um3pl: 'KG' }), order()]) : (await Promise.all([order(), put(a.id, { um3pl: 'KG' })])).reverse();
        return { a, change: change!, created: created! };
      }));
      for (const { a, change, created } of outcomes) {
        expect(String([change.status, created.status]), JSON.stringify([change.body, created.body])).to.be.oneOf(['200,422', '422,201']);
        if (change.status === 200) {
          expect(created.body.errors).to.deep.equal({ 'items.0.um3pl': ["The unit must be the article's unit, KG."] });
          expect(await unitOf(a.id)).to.equal('KG');
        } else {
          expect(Object.keys(change.body.errors)).to.deep.equal(['um3pl']);
          expect(await unitOf(a.id)).to.equal('BUC');
        }
      }
    });

    it('When turning the whole-number flag on races a fractional sales order, Then never both', async function () {
      this.timeout(120_000);
      const outcomes = await Promise.all(Array.from({ length: pairs }, async (_, i) => {
        const a = await kgArticle(world, world.client.id);
        const order = () => world.as('operator').post('/api/sales-orders').send({ partner_id: world.partners.client, source_warehouse_id: world.warehouses[0], internal_code: unique('SO-'), items: [{ article_id: a.id, um3pl: 'KG', quantity_um3pl: 1.5 }] });
        const [flag, created] = i % 2 ? await Promise.all([put(a.id, { integer_only: true }), order()]) : (await Promise.all([order(), put(a.id, { integer_only: true })])).reverse();
        return { flag: flag!, created: created! };
      }));
      for (const { flag, created } of outcomes) {
        expect(String([flag.status, created.status]), JSON.stringify([flag.body, created.body])).to.be.oneOf(['200,422', '422,201']);
      }
    });
  });
});
