/** Inbound documents built through the API, as a client would: a purchase order and a reception of part of it. */
import { expect } from 'chai';
import type { World } from './factories.js';

export interface ReceivedOrder {
  orderId: number;
  itemId: number;
  receptionId: number;
}

const made = new Map<string, ReceivedOrder>();

/** A purchase order of 10 of the client's article, 4 of it received in the world's first warehouse (made once per client). */
export async function receivedOrder(world: World, clientId: number): Promise<ReceivedOrder> {
  const key = `${world.provider.id}:${clientId}`;
  const existing = made.get(key);
  if (existing) return existing;
  const own = clientId === world.client.id;
  const agent = world.as('providerAdmin', clientId);
  const supplier = own ? world.partners.supplier : world.partners.otherClientSupplier;
  const article = own ? world.articles.client : world.articles.otherClient;
  const order = await agent
    .post('/api/purchase-orders')
    .send({ partner_id: supplier, internal_code: `PO-${key}`, items: [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 10 }] })
    .expect(201);
  const itemId = order.body.data.items[0].id as number;
  const reception = await agent
    .post('/api/receptions')
    .send({ purchase_order_id: order.body.data.id, warehouse_id: world.warehouses[0], selected_items: [{ po_item_id: itemId, quantity_um3pl: 4 }] })
    .expect(201);
  expect(reception.body.data.items).to.have.length(1);
  const result = { orderId: order.body.data.id as number, itemId, receptionId: reception.body.data.id as number };
  made.set(key, result);
  return result;
}
