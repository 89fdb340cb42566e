/**
 * Nothing differs from one instance: a token revoked on one instance is refused by the others
 * within 1 s (each had it cached for 10 s); a module switched off with the operator CLI (the real
 * process, REDIS_URL set) is refused by every instance within 1 s of the command's end; the login
 * rate limit (10 a minute per address and email) is one count across the instances.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createUser, TEST_PASSWORD, type TestUser } from '../../helpers/factories.js';
import { projectRoot } from '../../../src/platform/project-root.js';
import { SETTLE_MS } from '../../../src/components/auth/auth.cache.js';
import type { RemoteWorld } from '../remote.js';
import type { Instance, Stack } from '../stack.js';
import { poll, sleep, type Report } from '../report.js';
import { remoteApi } from '../remote.js';

const WITHIN_MS = 1000;
const run = promisify(execFile);

async function status(instance: Instance, token: string, company: number): Promise<number> {
  const res = await fetch(`${instance.url}/api/articles?per_page=1`, { headers: { Authorization: `Bearer ${token}`, 'X-Company-Id': String(company) }, signal: AbortSignal.timeout(5000) });
  await res.arrayBuffer();
  return res.status;
}

/** Each instance has the user's token and access cached (nothing settling), answering 200. */
async function primed(stack: Stack, user: TestUser, company: number): Promise<boolean> {
  await sleep(SETTLE_MS + 100);
  const answers = [];
  for (const i of stack.instances) for (let n = 0; n < 2; n++) answers.push(await status(i, user.token, company));
  return answers.every((s) => s === 200);
}

/** Instance name -> ms until it answered `expected` (undefined: not within 5 s). */
async function refusedWithin(stack: Stack, user: TestUser, company: number, expected: number, since: number): Promise<Record<string, number | undefined>> {
  const took = await Promise.all(stack.instances.map(async (i) => ((await poll(async () => (await status(i, user.token, company)) === expected, 5000, 20)) === undefined ? undefined : Date.now() - since)));
  return Object.fromEntries(stack.instances.map((i, n) => [i.name, took[n]]));
}

const fast = (took: Record<string, number | undefined>) => Object.values(took).every((ms) => ms !== undefined && ms <= WITHIN_MS);

async function cli(stack: Stack, ...argv: string[]): Promise<string> {
  const env = { ...process.env, DATABASE_URL: stack.databaseUrl(stack.instances.at(-1)!.node), REDIS_URL: stack.options.redisUrl, REDIS_PREFIX: stack.options.redisPrefix };
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/tpl.ts', ...argv], { cwd: projectRoot, env, timeout: 60_000 });
  return stdout;
}

export async function revocationScenario(stack: Stack, world: RemoteWorld, report: Report): Promise<void> {
  const company = world.client.id;
  const [first, ...others] = stack.instances;

  const user = await createUser(stack.db, { memberships: [[company, 'operator']] });
  report.expect('revocation: the token is cached on every instance', await primed(stack, user, company), '');
  const revokedAt = Date.now();
  const revoke = await remoteApi(first!.url, { token: user.token }).post('/api/auth/revoke');
  report.expect('revocation: revoked on the first instance', revoke.status === 200, String(revoke.status));
  const took = await refusedWithin(stack, user, company, 401, revokedAt);
  report.figure('revocation on api1: refused by each instance after (ms)', JSON.stringify(took));
  report.expect(`revocation: refused by ${others.map((i) => i.name).join(' and ')} within 1 s`, fast(took), JSON.stringify(took));

  const member = await createUser(stack.db, { memberships: [[company, 'operator']] });
  report.expect('cli: the access is cached on every instance', await primed(stack, member, company), '');
  const output = await cli(stack, 'set-module', '--company', String(company), '--module', 'articles', '--off');
  const doneAt = Date.now();
  const off = await refusedWithin(stack, member, company, 403, doneAt);
  report.figure('set-module --off through the CLI: refused by each instance after the command ended (ms)', JSON.stringify(off));
  report.expect('cli: the CLI told every instance through Redis', output.includes(`Told ${stack.instances.length} running instances`), output.trim().split('\n').at(-1) ?? '');
  report.expect('cli: a module switched off is refused by every instance within 1 s', fast(off), JSON.stringify(off));
  await cli(stack, 'set-module', '--company', String(company), '--module', 'articles', '--on');
  const on = await refusedWithin(stack, member, company, 200, Date.now());
  report.expect('cli: switched on again, every instance serves it within 1 s', fast(on), JSON.stringify(on));

  // The login limit: 10 a minute per address and email, counted in Redis across the instances.
  const login = await createUser(stack.db, { memberships: [[company, 'viewer']] });
  const statuses: number[] = [];
  for (let n = 0; n < 12; n++) {
    const i = stack.instances[n % stack.instances.length]!;
    statuses.push((await remoteApi(i.url).post('/api/auth/token').send({ email: login.email, password: TEST_PASSWORD, device_name: 'cluster' })).status);
  }
  const ok = statuses.filter((s) => s === 200).length;
  report.expect('rate limit: 12 logins spread over the instances: 10 accepted, the 11th and 12th refused (429), one count for all', ok === 10 && statuses.slice(10).every((s) => s === 429), JSON.stringify(statuses));
}
