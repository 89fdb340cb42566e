/**
 * One database node killed mid-run (SIGKILL) while clients read and write: the instances on the
 * other nodes keep serving, the one on the dead node answers 503 (readiness and data), HAProxy
 * takes it out through /readyz so that clients through it see no 5xx, and once the node rejoins
 * (IST, or SST) the instance is ready again, HAProxy puts it back, and it reads what was written
 * meanwhile.
 */
import { freshArticle } from '../../fixtures/articles.js';
import { buc, orderBody } from '../../fixtures/sales-orders.js';
import type { RemoteWorld } from '../remote.js';
import type { Instance, Stack } from '../stack.js';
import { poll, sleep, type Report } from '../report.js';
import { ledgerOnEveryNode } from './concurrency.js';

interface Sample {
  at: number;
  target: string;
  write: boolean;
  status: number;
}

async function send(url: string, token: string, company: number, body?: unknown): Promise<number> {
  const res = await fetch(url, {
    method: body ? 'POST' : 'GET',
    headers: { Authorization: `Bearer ${token}`, 'X-Company-Id': String(company), 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  }).catch(() => undefined);
  await res?.arrayBuffer().catch(() => undefined);
  return res?.status ?? 0;
}

export async function nodeFailureScenario(stack: Stack, world: RemoteWorld, report: Report): Promise<void> {
  const galera = stack.galera!;
  const victim = stack.instances.at(-1)! as Instance & { node: NonNullable<Instance['node']> };
  const survivors = stack.instances.slice(0, -1);
  const token = world.users.operator.token;
  const company = world.client.id;
  const article = await freshArticle(world, company, 'BUC', 'FAIL-');
  const samples: Sample[] = [];
  let running = true;
  const targets = [{ name: 'haproxy', url: stack.haproxy.url }, ...survivors.map((i) => ({ name: i.name, url: i.url }))];
  const load = targets.map(async (t, n) => {
    for (let k = 0; running; k++) {
      const write = k % 3 === n % 3;
      const status = await send(`${t.url}/api/${write ? 'sales-orders' : 'articles?per_page=1'}`, token, company, write ? orderBody(world, [buc(article, 1)]) : undefined);
      samples.push({ at: Date.now(), target: t.name, write, status });
      await sleep(50);
    }
  });
  await sleep(2000);

  const killedAt = Date.now();
  await galera.kill(victim.node);
  const readyz503 = await poll(async () => (await fetch(`${victim.url}/readyz`, { signal: AbortSignal.timeout(5000) })).status === 503, 30_000, 100);
  report.expect(`node failure: ${victim.name} (its node dead) answers 503 on /readyz`, readyz503 !== undefined, readyz503 === undefined ? 'not within 30 s' : `after ${readyz503} ms`);
  const data = await send(`${victim.url}/api/articles?per_page=1`, token, company);
  report.expect(`node failure: ${victim.name} answers 503 to a data request`, data === 503, String(data));
  const outMs = await poll(async () => (await stack.haproxy.servers())[victim.name]?.startsWith('DOWN') === true, 30_000, 100);
  const outAt = Date.now();
  report.expect(`node failure: HAProxy took ${victim.name} out (via /readyz)`, outMs !== undefined, outMs === undefined ? 'not within 30 s' : `${Date.now() - killedAt} ms after the kill`);
  report.figure(`${victim.name} out of HAProxy after the kill`, `${outAt - killedAt} ms`);
  await sleep(5000);

  const restartedAt = Date.now();
  const rejoin = await galera.restart(victim.node, 180_000).catch((error: Error) => ({ transfer: 'failed' as const, ms: Date.now() - restartedAt, error }));
  report.expect('node failure: the node rejoined the cluster and synced', rejoin.transfer !== 'failed', `${rejoin.transfer} in ${rejoin.ms} ms`);
  report.figure('node rejoin (recover + state transfer + synced)', `${rejoin.transfer} in ${rejoin.ms} ms`);
  const ready = await poll(async () => (await fetch(`${victim.url}/readyz`, { signal: AbortSignal.timeout(5000) })).status === 200, 60_000, 200);
  report.expect(`node failure: ${victim.name} ready again`, ready !== undefined, ready === undefined ? 'not within 60 s' : `${ready} ms after the node synced`);
  const back = await poll(async () => (await stack.haproxy.servers())[victim.name] === 'UP', 60_000, 200);
  report.expect(`node failure: HAProxy put ${victim.name} back`, back !== undefined, back === undefined ? 'not within 60 s' : `${Date.now() - restartedAt} ms after the restart began`);
  await sleep(2000);
  running = false;
  await Promise.all(load);

  const written = await stack.db('sales_orders').where('company_id', company).whereIn('id', stack.db('sales_order_items').select('sales_order_id').where('article_id', article.id)).select('id');
  const reads = await Promise.all(written.slice(-20).map((o: { id: number }) => send(`${victim.url}/api/sales-orders/${o.id}`, token, company)));
  report.expect(`node failure: ${victim.name} reads the orders written while its node was down`, written.length > 0 && reads.every((s) => s === 200), `${written.length} written, last reads ${JSON.stringify([...new Set(reads)])}`);

  const bad = (s: Sample) => s.status >= 500 || s.status === 0;
  for (const i of survivors) {
    const own = samples.filter((s) => s.target === i.name);
    report.expect(`node failure: ${i.name} kept serving (no 5xx, no failed request)`, own.length > 0 && !own.some(bad), `${own.length} requests, ${own.filter(bad).length} failed`);
  }
  const through = samples.filter((s) => s.target === 'haproxy');
  const window = through.filter((s) => s.at >= killedAt && s.at <= outAt);
  const after = through.filter((s) => s.at > outAt);
  report.figure('through HAProxy while it took the dead instance out', `${window.length} requests, ${window.filter(bad).length} answered 5xx (writes that reached ${victim.name}: 503, not retried by design)`);
  report.expect('node failure: through HAProxy, only 503s (never another 5xx) while the instance was being taken out', window.every((s) => !bad(s) || s.status === 503), JSON.stringify(window.filter(bad).map((s) => s.status)));
  report.expect('node failure: through HAProxy, no 5xx once the instance was out, and none after it came back', after.length > 0 && !after.some(bad), `${after.length} requests, ${after.filter(bad).length} failed`);
  await ledgerOnEveryNode(stack, report, 'node failure');
}
