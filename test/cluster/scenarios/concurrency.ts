/**
 * 200 concurrent deliveries of 1-unit picked orders against 100 on hand, through HAProxy (so spread
 * over the three instances and their nodes): exactly 100 delivered and 100 refused, no 5xx, stock
 * 0 on hand, the ledger equal to the balances on every node. Galera certification conflicts
 * happen (counted) and are retried like deadlocks.
 */
import type { Response } from 'supertest';
import { freshArticle, type Article } from '../../fixtures/articles.js';
import { balances, ledgerMismatches, movements } from '../../fixtures/probes.js';
import { buc, createSalesOrder, moveThrough } from '../../fixtures/sales-orders.js';
import { levels, receiveStock } from '../../fixtures/stock.js';
import type { RemoteWorld } from '../remote.js';
import type { Stack } from '../stack.js';
import { poll, type Report } from '../report.js';
import { settled, statusCounts } from './support.js';

const ORDERS = 200;
const ON_HAND = 100;

export async function certificationConflicts(stack: Stack): Promise<number> {
  let total = 0;
  for (const db of stack.nodeDbs) {
    const [rows] = (await db.raw("show global status where variable_name in ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')").catch(() => [[]])) as [Array<{ Value: string }>];
    total += rows.reduce((sum, r) => sum + Number(r.Value), 0);
  }
  return total;
}

async function pickedOrders(world: RemoteWorld, article: Article): Promise<number[]> {
  const ids: number[] = [];
  for (let batch = 0; batch < ORDERS / 20; batch++) {
    const made = await Promise.all(
      Array.from({ length: 20 }, async () => (await moveThrough(world, (await createSalesOrder(world, [buc(article, 1)])).id, ['picking', 'picked'])).id),
    );
    ids.push(...made);
  }
  return ids;
}

export async function concurrencyScenario(stack: Stack, world: RemoteWorld, report: Report): Promise<Article> {
  const article = await freshArticle(world, world.client.id, 'BUC', 'CLUSTER-');
  await receiveStock(world, article, ON_HAND);
  let started = Date.now();
  const ids = await pickedOrders(world, article);
  report.figure('set-up of 200 picked orders through HAProxy', `${Date.now() - started} ms`);
  const before = await levels(world, article.id);
  report.expect('concurrency: set-up', before.quantity === ON_HAND && before.reserved === ORDERS, JSON.stringify(before));

  const conflictsBefore = await certificationConflicts(stack);
  const requestsBefore = await stack.haproxy.requests();
  started = Date.now();
  const results = await Promise.all(
    ids.map((id) => settled(world.as('operator').post(`/api/sales-orders/${id}/status`).send({ status: 'delivered' }))),
  );
  report.figure('200 concurrent deliveries through HAProxy', `${Date.now() - started} ms`);
  const requestsAfter = await stack.haproxy.requests();
  const spread = Object.fromEntries(stack.instances.map((i) => [i.name, (requestsAfter[i.name] ?? 0) - (requestsBefore[i.name] ?? 0)]));
  report.figure('deliveries per instance', JSON.stringify(spread));
  if (stack.mode === 'galera') report.figure('Galera certification conflicts during the race (cert failures + BF aborts, all nodes)', String((await certificationConflicts(stack)) - conflictsBefore));

  const counts = statusCounts(results);
  report.expect('concurrency: no 5xx and no answer but 200 or 422', Object.keys(counts).every((s) => s === '200' || s === '422'), JSON.stringify(counts));
  report.expect(`concurrency: exactly ${ON_HAND} delivered and ${ORDERS - ON_HAND} refused (0 oversells)`, counts['200'] === ON_HAND && counts['422'] === ORDERS - ON_HAND, JSON.stringify(counts));
  report.expect('concurrency: every instance took part', Object.values(spread).every((n) => n >= ORDERS / (stack.instances.length * 3)), JSON.stringify(spread));
  const after = await levels(world, article.id);
  report.expect('concurrency: stock 0 on hand, 100 still reserved, never negative', after.quantity === 0 && after.reserved === ORDERS - ON_HAND, JSON.stringify(after));
  await ledgerOnEveryNode(stack, report, 'concurrency');
  const delivered = results.filter((r: Response | undefined) => r?.status === 200).length;
  const moved = (await movements(stack.db, { article_id: article.id, cause: 'delivery' })).length;
  report.expect('concurrency: one delivery movement per delivered order', moved === delivered, `${moved} movements, ${delivered} delivered`);
  return article;
}

/** The ledger equals the balances, and every node holds the same balances (within 30 s of replication). */
export async function ledgerOnEveryNode(stack: Stack, report: Report, scenario: string): Promise<void> {
  const mismatches = await ledgerMismatches(stack.db);
  report.expect(`${scenario}: ledger consistent (sum of movements = balance)`, mismatches.length === 0, mismatches.slice(0, 3).join('; '));
  const snapshot = async (db: (typeof stack.nodeDbs)[number]) => JSON.stringify((await balances(db, {})).map((b) => [b.id, b.quantity, b.reserved]));
  const same = await poll(async () => new Set(await Promise.all(stack.nodeDbs.map(snapshot))).size === 1, 30_000, 200);
  report.expect(`${scenario}: every node holds the same balances`, same !== undefined, same === undefined ? 'nodes differ after 30 s' : `agreed after ${same} ms`);
}
