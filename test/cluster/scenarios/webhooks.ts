/**
 * Webhooks with two workers on different nodes: two subscriptions of the client receive every
 * event of the run; each delivery is sent exactly once per subscription (the receiver counts sends
 * by webhook-id), and both workers sent some.
 */
import { readFileSync } from 'node:fs';
import type { RemoteWorld } from '../remote.js';
import type { Stack } from '../stack.js';
import { poll, type Report } from '../report.js';
import { countEvents, undispatchedEvents } from '../../fixtures/probes.js';

export interface Subscriptions {
  ids: number[];
  paths: string[];
}

export async function subscribe(stack: Stack, world: RemoteWorld): Promise<Subscriptions> {
  const paths = ['/erp-a', '/erp-b'];
  const ids = [];
  for (const path of paths) {
    const res = await world.as('admin').post('/api/webhooks').send({ url: `${stack.receiver.url}${path}`, events: ['*'], description: `cluster test ${path}` }).expect(201);
    ids.push(res.body.data.id as number);
  }
  // As the receiver records them (the path of each request).
  return { ids, paths: paths.map((p) => new URL(`${stack.receiver.url}${p}`).pathname) };
}

export async function webhooksScenario(stack: Stack, world: RemoteWorld, subscriptions: Subscriptions, report: Report): Promise<void> {
  const { db } = stack;
  const pending = async () => {
    const undispatched = await undispatchedEvents(db, world.client.id);
    const open = await db('webhook_deliveries').whereIn('webhook_id', subscriptions.ids).whereNot('status', 'delivered').count({ n: '*' }).first();
    return undispatched + Number(open?.n);
  };
  const took = await poll(async () => (await pending()) === 0, 180_000, 500);
  report.expect('webhooks: every event fanned out and delivered', took !== undefined, took === undefined ? `${await pending()} still pending after 180 s` : `done ${took} ms after the last scenario`);

  const deliveries: Array<{ webhook_id: number; event_id: string; attempts: number }> = await db('webhook_deliveries').whereIn('webhook_id', subscriptions.ids).select('webhook_id', 'event_id', 'attempts');
  const events = await countEvents(db, { companyId: world.client.id });
  const pathOf = new Map(subscriptions.ids.map((id, i) => [id, subscriptions.paths[i]!]));
  const sends = new Map<string, number>();
  for (const r of stack.receiver.received) {
    const key = `${r.path} ${String(r.headers['webhook-id'])}`;
    sends.set(key, (sends.get(key) ?? 0) + 1);
  }
  const twice = [...sends].filter(([, n]) => n > 1);
  const missing = deliveries.filter((d) => !sends.has(`${pathOf.get(d.webhook_id)} ${d.event_id}`));
  const perPair = new Set(deliveries.map((d) => `${d.webhook_id} ${d.event_id}`));
  report.figure('webhook deliveries', `${deliveries.length} (${events} events x 2 subscriptions), ${stack.receiver.received.length} sends received`);
  report.expect('webhooks: one delivery per event and subscription', perPair.size === deliveries.length && deliveries.length === 2 * events, `${deliveries.length} deliveries, ${perPair.size} distinct, ${events} events`);
  report.expect('webhooks: no delivery sent twice (counted by webhook-id per subscription)', twice.length === 0, twice.slice(0, 3).map(([k, n]) => `${k} x${n}`).join('; '));
  report.expect('webhooks: every delivery received', missing.length === 0 && stack.receiver.received.length === deliveries.length, `${missing.length} missing, ${stack.receiver.received.length} received of ${deliveries.length}`);
  const byWorker = stack.workers.map((w) => (readFileSync(w.logFile, 'utf8').match(/"msg":"webhook attempt"/g) ?? []).length);
  report.figure('attempts by worker (node 1, node 2)', JSON.stringify(byWorker));
  report.expect('webhooks: both workers, on different nodes, sent deliveries', byWorker.every((n) => n > 0), JSON.stringify(byWorker));
}
