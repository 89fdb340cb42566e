/**
 * The same Idempotency-Key sent to every instance at once (each on its own node): the order is
 * created once; the other answers are replays of that 201 or 409 (still running), never a 5xx.
 */
import { freshArticle } from '../../fixtures/articles.js';
import { buc, orderBody } from '../../fixtures/sales-orders.js';
import { unique } from '../../helpers/factories.js';
import type { RemoteWorld } from '../remote.js';
import type { Stack } from '../stack.js';
import type { Report } from '../report.js';
import { settled, statusCounts } from './support.js';

const KEYS = 10;

export async function idempotencyScenario(stack: Stack, world: RemoteWorld, report: Report): Promise<void> {
  const article = await freshArticle(world, world.client.id, 'BUC', 'IDEM-');
  const all: Array<{ status: number } | undefined> = [];
  const wrong: string[] = [];
  let replays = 0;
  for (let k = 0; k < KEYS; k++) {
    const key = unique('cluster-key-');
    const body = orderBody(world, [buc(article, 1)]);
    const results = await Promise.all(
      stack.instances.map((i) => settled(world.at(i.url, 'operator').post('/api/sales-orders').set('Idempotency-Key', key).send(body))),
    );
    all.push(...results);
    const rows = await stack.db('sales_orders').where('internal_code', body.internal_code as string).select('id');
    const created = results.filter((r) => r?.status === 201);
    const ids = new Set(created.map((r) => r!.body.data.id as number));
    replays += created.filter((r) => r!.headers['idempotent-replayed'] === 'true').length;
    if (rows.length !== 1 || ids.size > 1 || (ids.size === 1 && !ids.has(rows[0]!.id))) {
      wrong.push(`${key}: ${rows.length} orders stored, answers ${JSON.stringify(results.map((r) => r?.status))}`);
    }
  }
  const counts = statusCounts(all);
  report.figure(`answers to ${KEYS} keys sent to ${stack.instances.length} instances at once`, `${JSON.stringify(counts)}, ${replays} of the 201s replayed`);
  report.expect('idempotency: each key executed exactly once, every 201 naming that order', wrong.length === 0, wrong.slice(0, 3).join('; '));
  report.expect('idempotency: no 5xx (only 201, a replayed 201, or 409 while the first runs)', Object.keys(counts).every((s) => s === '201' || s === '409'), JSON.stringify(counts));
}
