/**
 * The fuzzer's world and how it calls an operation: a world (test/helpers/factories.ts) with one
 * of each document built through the API (articles, purchase orders with receptions, a new and a
 * delivered sales order, returns, webhooks with deliveries), the hints that make generated bodies
 * name its real ids, the real path ids, and `send`, which calls through `api()` (the contract
 * check runs on every response) with the operation's credentials and refuses a response that
 * shows a credential or an internal column (test/helpers/leaks.ts).
 */
import fc from 'fast-check';
import type { Response } from 'supertest';
import type { ContractOperation } from '../../src/platform/openapi/document.js';
import { createToken, createWorld, TEST_PASSWORD, unique, type World } from '../helpers/factories.js';
import type { Harness } from '../helpers/harness.js';
import { receivedOrder } from '../fixtures/receptions.js';
import { outboundDocuments } from '../fixtures/returns.js';
import { buc, createSalesOrderOf, moveThrough } from '../fixtures/sales-orders.js';
import { subscription } from '../fixtures/webhooks.js';
import { internalColumns, leaks, showsSecret } from '../helpers/leaks.js';
import { callerOf } from '../helpers/successful-writes.js';
import type { FuzzContext, FuzzRequest, Hints } from './arbitraries.js';

export interface FuzzWorld extends FuzzContext {
  world: World;
  ids: Record<string, number[]>;
  articleCodes: string[];
  /** Columns of the database that no schema names: no response may show them. */
  internal: ReadonlySet<string>;
}

export async function fuzzWorld(h: Harness): Promise<FuzzWorld> {
  const world = await createWorld(h.app, h.db);
  const agent = world.as('providerAdmin', world.client.id);
  const kg = await agent
    .post('/api/articles')
    .send({ article_code: unique('FUZZ-KG-'), description: 'Flour by weight', um3pl: 'KG' })
    .expect(201);
  const own = await receivedOrder(world, world.client.id);
  const other = await receivedOrder(world, world.otherClient.id);
  const outbound = await outboundDocuments(world, world.client.id);
  const so = await createSalesOrderOf(world, world.client.id, [buc(world.articles.client, 1)], { internal_code: unique('SO-FUZZ-') });
  await moveThrough(world, so.id, ['picking', 'picked', 'delivered'], 'providerAdmin', world.client.id);
  const hooks = [];
  for (let i = 0; i < 3; i++) hooks.push(await subscription(world, world.client.id));
  hooks.push(await subscription(world, world.otherClient.id));
  const reception = await agent.get(`/api/receptions/${own.receptionId}`).expect(200);

  const ids: Record<string, number[]> = {
    clients: [world.client.id, world.otherClient.id],
    partners: Object.values(world.partners),
    warehouses: world.warehouses,
    articles: [world.articles.client.id, kg.body.data.id, world.articles.otherClient.id],
    'purchase-orders': [own.orderId, other.orderId],
    poItems: [own.itemId, other.itemId],
    receptions: [own.receptionId, other.receptionId],
    receptionItems: (reception.body.data.items as Array<{ id: number }>).map((item) => item.id),
    'sales-orders': [outbound.salesOrderId, so.id],
    returns: [outbound.returnId],
    webhooks: hooks.map((hook) => hook.webhookId),
    deliveries: hooks.map((hook) => hook.deliveryId),
  };
  const articleCodes = [world.articles.client.code, kg.body.data.article_code as string, world.articles.otherClient.code];
  const from = (values: readonly unknown[]) => fc.constantFrom(...values);
  const users = Object.values(world.users).map((u) => u.email);
  const hints: Hints = {
    article_id: from(ids.articles!),
    partner_id: from(ids.partners!),
    warehouse_id: from(world.warehouses),
    source_warehouse_id: from(world.warehouses),
    purchase_order_id: from(ids['purchase-orders']!),
    po_item_id: from(ids.poItems!),
    sales_order_id: from(ids['sales-orders']!),
    id: from(ids.receptionItems!),
    client_3pl_id: from([world.client.id, world.otherClient.id, world.provider.id]),
    article_code: fc.oneof(from(articleCodes), fc.string({ minLength: 1, maxLength: 20 }).map((s) => `FZ-${s}`)),
    um3pl: from(['BUC', 'KG']),
    uom: from(['BUC', 'KG']),
    unit: from(['BUC', 'KG']),
    quantity_um3pl: fc.oneof(fc.integer({ min: 1, max: 5 }), from(['1', '1,5', '0.25', '2.000', 0.5])),
    url: from(['http://127.0.0.1:9/hooks', 'https://93.184.215.14/hooks', 'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/h']),
    events: from([['*'], ['stock.changed'], ['article.created', 'article.updated']]),
    email: from(users),
    password: from([TEST_PASSWORD, 'wrong-password']),
    query: from(['{ articles(limit: 5) { id article_code } }', '{ warehouses { id } }', '{ __typename }', `{ article(id: ${world.articles.client.id}) { id description } }`, 'query Q($n: Int) { articles(limit: $n) { id } }']),
    variables: from([null, {}, { n: 3 }, { n: 'x' }]),
    operationName: from([null, 'Q']),
    page: from([1, 2]),
    per_page: from([1, 10, 100]),
    updated_since: from(['2000-01-01T00:00:00Z', '2026-11-21T10:00:00.000000Z', '2100-01-01T00:00:00+02:00']),
  };
  const byParam: Record<string, () => Array<string | number>> = {
    articleCode: () => articleCodes,
    client3plId: () => [world.client.id, world.otherClient.id, world.provider.id],
    warehouseId: () => world.warehouses,
    deliveryId: () => ids.deliveries!,
  };
  return {
    world,
    ids,
    articleCodes,
    internal: await internalColumns(h.db),
    hints,
    pathValues: (op, name) => (byParam[name]?.() ?? ids[op.path.split('/')[2]!] ?? []).map((v) => encodeURIComponent(String(v))),
  };
}

/** Calls `op` as its caller would (test/helpers/successful-writes.ts `callerOf`). */
export async function send(h: Harness, fw: FuzzWorld, op: ContractOperation, req: FuzzRequest): Promise<Response> {
  // revoking would end the shared token: each revoke gets a token of its own.
  const token = op.operationId === 'revokeToken' ? await createToken(h.db, fw.world.users.operator.id) : undefined;
  const url = req.query.length ? `${req.path}?${new URLSearchParams(req.query)}` : req.path;
  let test = callerOf(h, fw.world, op, token).request(op.method, url);
  for (const [name, value] of Object.entries(req.headers)) test = test.set(name, value);
  if (req.body !== undefined) {
    test = 'json' in req.body ? test.set('Content-Type', 'application/json').send(JSON.stringify(req.body.json)) : test.set('Content-Type', req.body.type).send(req.body.raw);
  }
  const res = await test;
  // The document itself names `password` and `secret` as properties of its schemas: it is not data.
  if (op.operationId !== 'getOpenApiDocument') {
    const leaked = leaks(res.body, fw.internal, showsSecret(op.operationId, req.body && 'json' in req.body ? req.body.json : undefined));
    if (leaked.length) throw new Error(`${op.method} ${req.path} -> ${res.status} shows ${leaked.join(', ')}: ${res.text.slice(0, 300)}`);
  }
  return res;
}
