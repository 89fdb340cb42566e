/**
 * POST /api/returns with `sales_order_id`: the order must be a delivered order of the return's
 * client, sent to the return's partner, and each article may come back at most as much as the order delivered less what earlier
 * returns against it took back (lines of one return for the same article count together). A
 * refused return writes nothing. Concurrent returns against one order queue on the order: of two
 * for the whole delivered quantity exactly one is stored, and stock rises once.
 */
import { expect } from 'chai';
import type { Response } from 'supertest';
import * as build from '../../db/seeds/builders.js';
import { harness, type Harness } from '../helpers/harness.js';
import { createWorld, type World } from '../helpers/factories.js';
import { makeArticle } from '../fixtures/articles.js';
import { balance, movements, returnsState } from '../fixtures/probes.js';
import { createOrderOf } from '../fixtures/purchase-orders.js';
import { receive } from '../fixtures/receptions.js';
import { createSalesOrderOf, moveThrough } from '../fixtures/sales-orders.js';

const SAME_CLIENT = 'The sales_order_id must be a sales order of the same client that shipped goods (partially_delivered, delivered or closed).';
const tooMuch = (left: number, delivered: number) => `At most ${left} of this article can still be returned (${delivered} delivered).`;

type Line = { article_id: number; um3pl: string; quantity_um3pl: number | string; stock_type?: string };

describe('POST /api/returns against a sales order', () => {
  let h: Harness;
  let world: World;
  let stranger: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
    stranger = await createWorld(h.app, h.db);
  });

  const freshArticle = (w: World = world, clientId = w.client.id, um3pl = 'BUC') => makeArticle(w, clientId, { um3pl, prefix: `RSO-${um3pl}-` });

  /**
   * A sales order of `lines` ([article, unit, quantity]) from the first warehouse, with stock
   * received for it first, moved through `path` (e.g. picking, picked, delivered).
   */
  async function order(lines: Array<[number, string, number]>, path: string[], w: World = world, clientId = w.client.id): Promise<number> {
    const items = lines.map(([article_id, um3pl, quantity_um3pl]) => ({ article_id, um3pl, quantity_um3pl }));
    const po = await createOrderOf(w, clientId, items);
    await receive(w.as('providerAdmin', clientId), po.id, w.warehouses[0]!, po.items.map((i) => [i.id, i.quantity_um3pl]));
    const so = await createSalesOrderOf(w, clientId, items);
    await moveThrough(w, so.id, path, 'providerAdmin', clientId);
    return so.id;
  }
  const DELIVER = ['picking', 'picked', 'delivered'];

  const returnAgainst = (orderId: number, items: Line[], extra: Record<string, unknown> = {}) =>
    world.as('operator').post('/api/returns').send({ partner_id: world.partners.client, warehouse_id: world.warehouses[0], sales_order_id: orderId, items, ...extra });

  /** Everything a return may write for one client. */
  const clientState = (clientId = world.client.id) => returnsState(h.db, clientId);

  /** Expects a 422 with exactly `errors` and that nothing of the client changed. */
  async function expectRefused(send: () => PromiseLike<Response>, errors: Record<string, string[]>): Promise<void> {
    const before = await clientState();
    const res = await send();
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.errors).to.deep.equal(errors);
    expect(await clientState()).to.deep.equal(before);
  }

  const onHand = (articleId: number, stockType = 'STOC_OK'): Promise<number> => balance(h.db, { clientId: world.client.id, warehouseId: world.warehouses[0]!, articleId }, stockType);

  describe('what may come back', () => {
    it('When two returns take back part of a delivered order, Then a third over the remainder is refused and one of exactly the remainder is accepted', async () => {
      const article = await freshArticle();
      const orderId = await order([[article.id, 'BUC', 6]], DELIVER);
      expect(await onHand(article.id)).to.equal(0);

      const first = await returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 2, stock_type: 'STOC_DEFECT' }]).expect(201);
      expect(first.body.data).to.deep.include({ sales_order_id: orderId, client_3pl_id: world.client.id });
      await returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 1 }]).expect(201);

      await expectRefused(() => returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 4 }]), { 'items.0.quantity_um3pl': [tooMuch(3, 6)] });
      const last = await returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 3 }]).expect(201);
      await expectRefused(() => returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 1 }]), { 'items.0.quantity_um3pl': [tooMuch(0, 6)] });

      expect([await onHand(article.id), await onHand(article.id, 'STOC_DEFECT')]).to.deep.equal([4000, 2000]);
      const moved = await movements(h.db, { article_id: article.id });
      expect(moved.map((m) => [m.cause, m.document_kind, m.delta])).to.deep.equal([
        ['reception', 'reception', 6000],
        ['delivery', 'sales_order', -6000],
        ['return', 'return', 2000],
        ['return', 'return', 1000],
        ['return', 'return', 3000],
      ]);
      expect(moved[4]!.document_id).to.equal(last.body.data.id);
      expect(await h.db('returns').where('sales_order_id', orderId).pluck('id')).to.have.length(3);
    });

    it('When one return names the same article on two lines, Then the lines count together against what was delivered', async () => {
      const article = await freshArticle();
      const orderId = await order([[article.id, 'BUC', 5]], DELIVER);
      await expectRefused(
        () => returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 3 }, { article_id: article.id, um3pl: 'BUC', quantity_um3pl: 3, stock_type: 'STOC_DEFECT' }]),
        { 'items.1.quantity_um3pl': [tooMuch(2, 5)] },
      );
      const ok = await returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 3 }, { article_id: article.id, um3pl: 'BUC', quantity_um3pl: 2, stock_type: 'STOC_DEFECT' }]).expect(201);
      expect(ok.body.data.items.map((i: Line) => [i.quantity_um3pl, i.stock_type])).to.deep.equal([[3, 'STOC_OK'], [2, 'STOC_DEFECT']]);
      expect([await onHand(article.id), await onHand(article.id, 'STOC_DEFECT')]).to.deep.equal([3000, 2000]);
    });

    it('When an order delivered two articles, Then each has its own limit, in exact decimals', async () => {
      const buc = await freshArticle();
      const kg = await freshArticle(world, world.client.id, 'KG');
      const orderId = await order([[buc.id, 'BUC', 2], [kg.id, 'KG', 2.5]], DELIVER);
      await returnAgainst(orderId, [{ article_id: kg.id, um3pl: 'KG', quantity_um3pl: '1,25' }]).expect(201);
      await expectRefused(
        () => returnAgainst(orderId, [{ article_id: buc.id, um3pl: 'BUC', quantity_um3pl: 2 }, { article_id: kg.id, um3pl: 'KG', quantity_um3pl: 1.251 }]),
        { 'items.1.quantity_um3pl': [tooMuch(1.25, 2.5)] },
      );
      await expectRefused(
        () => returnAgainst(orderId, [{ article_id: buc.id, um3pl: 'BUC', quantity_um3pl: 3 }, { article_id: kg.id, um3pl: 'KG', quantity_um3pl: 1.25 }]),
        { 'items.0.quantity_um3pl': [tooMuch(2, 2)] },
      );
      await returnAgainst(orderId, [{ article_id: buc.id, um3pl: 'BUC', quantity_um3pl: 2 }, { article_id: kg.id, um3pl: 'KG', quantity_um3pl: 1.25 }]).expect(201);
      expect([await onHand(buc.id), await onHand(kg.id)]).to.deep.equal([2000, 2500]);
    });

    it('When a return names an article the order did not deliver, Then 422 on that line\'s article_id', async () => {
      const delivered = await freshArticle();
      const other = await freshArticle();
      const orderId = await order([[delivered.id, 'BUC', 4]], DELIVER);
      await expectRefused(
        () => returnAgainst(orderId, [{ article_id: delivered.id, um3pl: 'BUC', quantity_um3pl: 1 }, { article_id: other.id, um3pl: 'BUC', quantity_um3pl: 1 }]),
        { 'items.1.article_id': [`Article ${other.id} was not delivered by sales order ${orderId}.`] },
      );
    });

    it('When returns against one order and returns without an order mix, Then only those against the order count', async () => {
      const article = await freshArticle();
      const orderId = await order([[article.id, 'BUC', 2]], DELIVER);
      await world.as('operator').post('/api/returns').send({ partner_id: world.partners.client, warehouse_id: world.warehouses[0], items: [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 5 }] }).expect(201);
      await returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 2 }]).expect(201);
      expect(await onHand(article.id)).to.equal(7000);
    });
  });

  describe('which order', () => {
    for (const path of [[], ['picking'], ['picking', 'picked'], ['cancelled'], ['picking', 'picked', 'cancelled']]) {
      const status = path.length === 0 ? 'new' : path[path.length - 1]!;
      it(`When the order is ${status}${path.length > 1 ? ` (after ${path.slice(0, -1).join(', ')})` : ''}, Then 422 on sales_order_id naming its status`, async () => {
        const article = await freshArticle();
        const orderId = await order([[article.id, 'BUC', 3]], path);
        await expectRefused(() => returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 1 }]), {
          sales_order_id: [`Sales order ${orderId} is ${status}; only an order that shipped something (partially_delivered, delivered or closed) can be returned against.`],
        });
      });
    }

    it("When a provider user returns against another client's delivered order, Then 422 on sales_order_id", async () => {
      const theirs = await freshArticle(world, world.otherClient.id);
      const orderId = await order([[theirs.id, 'BUC', 3]], DELIVER, world, world.otherClient.id);
      const body = { partner_id: world.partners.client, warehouse_id: world.warehouses[0], sales_order_id: orderId, items: [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }] };
      await expectRefused(() => world.as('providerAdmin').post('/api/returns').send(body), { sales_order_id: [SAME_CLIENT] });
      await expectRefused(() => returnAgainst(orderId, [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }]), { sales_order_id: [SAME_CLIENT] });
      // Its own client may return against it.
      await world
        .as('otherClientAdmin')
        .post('/api/returns')
        .send({ partner_id: world.partners.otherClientCustomer, warehouse_id: world.warehouses[0], sales_order_id: orderId, items: [{ article_id: theirs.id, um3pl: 'BUC', quantity_um3pl: 3 }] })
        .expect(201);
    });

    it('When the article is now kept in another unit than the order delivered it in, Then 422 on the line\'s um3pl and nothing is written', async () => {
      const article = await freshArticle();
      const orderId = await order([[article.id, 'BUC', 3]], DELIVER);
      // Nothing on hand and no open line: the unit may change.
      await world.as('operator').put(`/api/articles/${article.id}`).send({ um3pl: 'KG' }).expect(200);
      await expectRefused(() => returnAgainst(orderId, [{ article_id: article.id, um3pl: 'KG', quantity_um3pl: 3 }]), {
        'items.0.um3pl': [`Sales order ${orderId} delivered article ${article.code} in BUC, and the article is now kept in KG: it cannot come back against that order (the quantities would mix units); leave sales_order_id out.`],
      });
    });

    it('When another customer of the same client returns against the order, Then 422 on partner_id naming the customer the order went to; that customer may', async () => {
      const article = await freshArticle();
      const orderId = await order([[article.id, 'BUC', 2]], DELIVER);
      const otherCustomer = await build.insertPartner(h.db, { company_id: world.client.id, type: 'client', name: `Second customer ${orderId}` });
      await expectRefused(() => returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 1 }], { partner_id: otherCustomer }), {
        partner_id: [`Sales order ${orderId} went to partner ${world.partners.client}: a return against it comes from that partner (leave sales_order_id out for goods not tied to an order).`],
      });
      // Goods of the other customer not tied to an order are taken.
      await world.as('operator').post('/api/returns').send({ partner_id: otherCustomer, warehouse_id: world.warehouses[0], items: [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 1 }] }).expect(201);
      await returnAgainst(orderId, [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 2 }]).expect(201);
    });

    it("When the order is another tenant's or unknown, Then 422 on sales_order_id", async () => {
      const theirs = await freshArticle(stranger);
      const foreign = await order([[theirs.id, 'BUC', 1]], DELIVER, stranger);
      for (const orderId of [foreign, 99_999_999]) {
        await expectRefused(() => returnAgainst(orderId, [{ article_id: world.articles.client.id, um3pl: 'BUC', quantity_um3pl: 1 }]), { sales_order_id: [SAME_CLIENT] });
      }
    });
  });

  describe('concurrency', () => {
    const results = (all: Response[]) => JSON.stringify(all.map((r) => [r.status, r.body]));

    for (let round = 1; round <= 3; round++) {
      it(`When two returns of the whole delivered quantity are sent at once (round ${round}), Then exactly one is stored and stock rises once`, async () => {
        const article = await freshArticle();
        const orderId = await order([[article.id, 'BUC', 4]], DELIVER);
        const before = await clientState();
        const line = [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 4 }];
        const all = await Promise.all([returnAgainst(orderId, line), returnAgainst(orderId, line)]);
        expect(all.map((r) => r.status).sort(), results(all)).to.deep.equal([201, 422]);
        const won = all.find((r) => r.status === 201)!;
        expect(all.find((r) => r.status === 422)!.body.errors).to.deep.equal({ 'items.0.quantity_um3pl': [tooMuch(0, 4)] });

        expect(await onHand(article.id)).to.equal(4000);
        expect(await h.db('returns').where('sales_order_id', orderId).pluck('id')).to.deep.equal([won.body.data.id]);
        const returned = await movements(h.db, { article_id: article.id, cause: 'return' });
        expect(returned.map((m) => [m.delta, m.document_id])).to.deep.equal([[4000, won.body.data.id]]);
        const after = await clientState();
        // One return, its line and movement; return.created and stock.changed.
        expect([after.returns - before.returns, after.lines - before.lines, after.movements - before.movements, after.events - before.events]).to.deep.equal([1, 1, 1, 2]);
      });
    }

    it('When five returns of 2 race for the 6 delivered, Then exactly three are stored and the order is never over-returned', async () => {
      const article = await freshArticle();
      const orderId = await order([[article.id, 'BUC', 6]], DELIVER);
      const line = [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 2 }];
      const all = await Promise.all(Array.from({ length: 5 }, () => returnAgainst(orderId, line)));
      expect(all.map((r) => r.status).sort(), results(all)).to.deep.equal([201, 201, 201, 422, 422]);
      for (const refused of all.filter((r) => r.status === 422)) expect(refused.body.errors).to.deep.equal({ 'items.0.quantity_um3pl': [tooMuch(0, 6)] });
      expect(await onHand(article.id)).to.equal(6000);
      const stored = await h.db('return_items as i').join('returns as r', 'r.id', 'i.return_id').where('r.sales_order_id', orderId).sum({ total: 'i.quantity' }).first();
      expect(Number(stored!.total)).to.equal(6000);
    });
  });
});
