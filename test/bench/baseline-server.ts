/**
 * The baseline: a bare node:http server with no middleware. For each scenario it runs the same
 * service call as the API (the same Knex queries; for writes the same transaction and statements)
 * and JSON.stringify of the same response. The caller's token and company are resolved once at
 * start, so what the API does on top (authentication, tenancy, validation, routing, logging) is
 * what the ratio full/baseline measures.
 * Env: DATABASE_URL, PORT, BENCH_TOKEN, BENCH_COMPANY_ID, APP_URL.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolveAccess } from '../../src/components/auth/access.service.js';
import { verifyBearerToken } from '../../src/components/auth/auth.service.js';
import { articlesAfter, listArticles, syncArticles } from '../../src/components/articles/articles.service.js';
import { createReception } from '../../src/components/receptions/receptions.service.js';
import { changeSalesOrderStatus } from '../../src/components/sales-orders/sales-orders.status.js';
import { createShipment } from '../../src/components/sales-orders/shipments.service.js';
import { createStockAdjustment } from '../../src/components/stock-adjustments/stock-adjustments.service.js';
import { listStock } from '../../src/components/stock/stock.service.js';
import { listEvents } from '../../src/components/events/events.service.js';
import { listMovements, listStockAsOf } from '../../src/components/stock/ledger.service.js';
import { existingCodes, insertArticle, toArticle } from '../../src/components/articles/articles.repository.js';
import { listUnits } from '../../src/components/reference/reference.repository.js';
import { recordEvent } from '../../src/platform/outbox.js';
import { inTransaction } from '../../src/platform/db/transaction.js';
import { createDb } from '../../src/platform/db/database.js';
import { pageEnvelope } from '../../src/platform/http/pagination.js';
import type { TenantContext } from '../../src/platform/tenant-context.js';
import { JsonText } from '../../src/platform/openapi/json-text.js';

const env = process.env;
const db = createDb(env.DATABASE_URL ?? 'sqlite:./data/bench.sqlite');
const appUrl = env.APP_URL ?? 'http://localhost';
const principal = await verifyBearerToken(db, env.BENCH_TOKEN ?? '');
if (!principal) throw new Error('BENCH_TOKEN is not a valid token');
const access = await resolveAccess(db, principal, Number(env.BENCH_COMPANY_ID));
const ctx: TenantContext = { db, scope: access.scope, principal, role: access.role };

/** JSON.stringify of the body; a body the service already wrote as text (JsonText) as it is, as the API writes it. */
function send(res: ServerResponse, status: number, body: unknown): void {
  const json = body instanceof JsonText ? body.text : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
}

/** The body as sent: the bench sends valid bodies, so the baseline does not validate them. */
async function readJson<T>(req: IncomingMessage): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

const STOCK_TYPES = ['STOC_OK', 'STOC_DEFECT', 'STOC_QUARANTINE'] as const;
type StockType = (typeof STOCK_TYPES)[number];
const stockTypeOf = (value: string | null): StockType | undefined => STOCK_TYPES.find((type) => type === value);

const int = (value: string | null): number | undefined => (value === null ? undefined : Number(value));

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const q = url.searchParams;
  const page = { page: int(q.get('page')) ?? 1, perPage: int(q.get('per_page')) ?? 25 };
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  if (token !== env.BENCH_TOKEN) {
    // A bare server's rejection of a token: the lookup, then 401 (the API remembers a rejected token
    // for AUTH_CACHE_TTL_SECONDS and refuses it again without the lookup).
    if (await verifyBearerToken(db, token)) throw new Error('a rejected token was accepted');
    return send(res, 401, { message: 'Unauthenticated.' });
  }
  if (req.method === 'GET' && url.pathname === '/api/articles') {
    const result = await listArticles(ctx, q.get('search') ?? undefined, page);
    return send(res, 200, pageEnvelope(appUrl, req.url ?? '', page, result.rows, result.total));
  }
  if (req.method === 'GET' && url.pathname === '/api/articles/sync') {
    return send(res, 200, await syncArticles(ctx, { cursor: int(q.get('cursor')), per_page: int(q.get('per_page')) }));
  }
  if (req.method === 'GET' && url.pathname === '/api/stock') {
    const articleIds = q.get('article_id')?.split(',').map(Number);
    const filters = { warehouse_id: int(q.get('warehouse_id')), article_id: articleIds, stock_type: stockTypeOf(q.get('stock_type')) };
    const result = await listStock(ctx, filters, page);
    return send(res, 200, pageEnvelope(appUrl, req.url ?? '', page, result.rows, result.total));
  }
  if (req.method === 'GET' && url.pathname === '/api/stock/movements') {
    return send(res, 200, await listMovements(ctx, { after: int(q.get('after')), perPage: int(q.get('per_page')) ?? 100 }));
  }
  if (req.method === 'GET' && url.pathname === '/api/stock/as-of') {
    const filters = { warehouse_id: int(q.get('warehouse_id')), stock_type: stockTypeOf(q.get('stock_type')) };
    const result = await listStockAsOf(ctx, q.get('at') ?? '', filters, page);
    return send(res, 200, pageEnvelope(appUrl, req.url ?? '', page, result.rows, result.total));
  }
  if (req.method === 'GET' && url.pathname === '/api/events') {
    return send(res, 200, await listEvents(ctx, { after: q.get('after') ?? undefined, perPage: int(q.get('per_page')) ?? 100 }));
  }
  if (req.method === 'POST' && url.pathname === '/api/articles/bulk') {
    // The bare work of a bulk of new articles, the statements the API runs: which codes the client
    // has and the unit catalogue, read once, then each article's insert and event, in one transaction.
    const { items } = await readJson<{ items: Array<{ article_code: string; description: string; um3pl: string; integer_only_um3pl_quantity: boolean }> }>(req);
    const data = await inTransaction(db, async (tx) => {
      const scope = ctx.scope as Extract<TenantContext['scope'], { kind: 'company' }>;
      if ((await existingCodes(tx, [scope.companyId], items.map((item) => item.article_code))).length > 0) throw new Error('the bulk codes are not new');
      await listUnits(tx, scope.providerId);
      const out = [];
      for (const [index, item] of items.entries()) {
        const row = await insertArticle(tx, { company_id: Number(env.BENCH_COMPANY_ID), name: null, barcode: null, active: true, ...item });
        await recordEvent(tx, { companyId: row.company_id, type: 'article.created', data: toArticle(row) });
        out.push({ index, status: 'created', id: row.id });
      }
      return out;
    });
    return send(res, 200, { data, meta: { created: data.length, updated: 0, unchanged: 0, failed: 0 } });
  }
  if (req.method === 'POST' && url.pathname === '/graphql') {
    const { query } = await readJson<{ query?: string }>(req);
    const limit = Number(/limit:\s*(\d+)/.exec(String(query))?.[1] ?? 50);
    const rows = await articlesAfter(ctx, { limit });
    const articles = rows.map((a) => ({ id: a.id, article_code: a.article_code, description: a.description, um3pl: a.um3pl, active: a.active }));
    return send(res, 200, { data: { articles } });
  }
  if (req.method === 'POST' && url.pathname === '/api/receptions') {
    return send(res, 201, { data: await createReception(ctx, await readJson<Parameters<typeof createReception>[1]>(req)) });
  }
  // Both `delivered` scenarios: the same service call and transaction as the API, which for lines of
  // articles with lots locks their rows, takes the lots earliest expiry first and allocates again.
  const status = /^\/api\/sales-orders\/(\d+)\/status$/.exec(url.pathname);
  if (req.method === 'POST' && status) {
    const body = await readJson<{ status?: 'delivered' }>(req);
    return send(res, 200, { data: await changeSalesOrderStatus(ctx, Number(status[1]), body.status ?? 'delivered') });
  }
  // The shipment scenario: the same service call and transaction as the API (the order locked, its
  // lines shipped from stock and its reservation, the shipment and its events recorded).
  const shipment = /^\/api\/sales-orders\/(\d+)\/shipments$/.exec(url.pathname);
  if (req.method === 'POST' && shipment) {
    return send(res, 201, { data: await createShipment(ctx, Number(shipment[1]), await readJson<Parameters<typeof createShipment>[2]>(req)) });
  }
  if (req.method === 'POST' && url.pathname === '/api/stock/adjustments') {
    return send(res, 201, { data: await createStockAdjustment(ctx, await readJson<Parameters<typeof createStockAdjustment>[1]>(req)) });
  }
  send(res, 404, { message: 'Not found.' });
}

const server = createServer((req, res) => {
  route(req, res).catch((error: unknown) => send(res, 500, { message: String(error) }));
});
server.keepAliveTimeout = 5_000;
server.listen(Number(env.PORT ?? 3100), '127.0.0.1', () => console.log(`baseline listening on ${env.PORT}`));
