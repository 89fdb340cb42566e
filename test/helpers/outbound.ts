/** Outbound documents built through the API, as a client would: a new sales order and a return. */
import type { World } from './factories.js';

export interface OutboundDocuments {
  salesOrderId: number;
  returnId: number;
}

const made = new Map<string, OutboundDocuments>();

/** A sales order of 1 of the client's article (status new) and a return of 1 of it (made once per client). */
export async function outboundDocuments(world: World, clientId: number): Promise<OutboundDocuments> {
  const key = `${world.provider.id}:${clientId}`;
  const existing = made.get(key);
  if (existing) return existing;
  const own = clientId === world.client.id;
  const agent = world.as('providerAdmin', clientId);
  const customer = own ? world.partners.client : world.partners.otherClientCustomer;
  const article = own ? world.articles.client : world.articles.otherClient;
  const order = await agent
    .post('/api/sales-orders')
    .send({ partner_id: customer, source_warehouse_id: world.warehouses[0], internal_code: `SO-${key}`, items: [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 1 }] })
    .expect(201);
  const returned = await agent
    .post('/api/returns')
    .send({ partner_id: customer, warehouse_id: world.warehouses[0], reason: 'Test return', items: [{ article_id: article.id, um3pl: 'BUC', quantity_um3pl: 1 }] })
    .expect(201);
  const result = { salesOrderId: order.body.data.id as number, returnId: returned.body.data.id as number };
  made.set(key, result);
  return result;
}
