/**
 * `make bench`: per engine (BENCH_DB, default `sqlite`, then `mysql` when MariaDB answers), seed
 * the volume, start the API as production runs it (compiled, NODE_ENV=production, logs at warn)
 * and the bare baseline, drive each scenario on both with autocannon from this process, then
 * the paired page comparisons, a client's first load, memory (peak under load, a soak for growth)
 * and the padded-document comparison. Prints every scenario and target (targets.ts) and writes
 * test/bench/results.json. Exits 1 when a target of any engine fails (each engine is judged against
 * its own baseline of the same run).
 *
 * BENCH_SECONDS (default 5) is the length of each measured run; every scenario runs 3 times on each
 * side, alternating, and each side keeps its best figures (the machine's noise only ever slows a
 * run). The page comparisons (targets.ts, PAIRS) and the padded document are judged on the
 * server's CPU time per request, as the median ratio of 7 paired 3 s rounds (pairedCpuRatio): one
 * slow spell of a shared machine cannot decide them.
 * The two `delivered` scenarios (orders of articles without lots, and of articles with 20 lots each)
 * are measured in the same rounds, and the FEFO one's p99 is judged against the other's.
 * BENCH_SOAK_SECONDS (default 60). BENCH_ONLY=<text> runs the scenarios whose name has it, and the
 * page comparisons whose two scenarios it runs, and the first load when the text has `bulk` (it
 * skips the soak and the padded comparison), and prints the targets of what ran without judging
 * them: for working on one scenario (`BENCH_ONLY=/api/stock` runs the stock page, the movements
 * feed and stock as of a time; `BENCH_ONLY=delivered` both deliveries; `BENCH_ONLY=shipments`,
 * `BENCH_ONLY=adjustments`; `BENCH_ONLY=webhook` the webhook drain alone). After the soak on each
 * engine, the webhook drain (webhook-drain.ts): reported with its figures (or its failure), judged
 * by no target.
 * BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306/tpl_bench).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrateLatest } from '../../db/migrations/index.js';
import { createDb } from '../../src/platform/db/database.js';
import { CONNECTIONS, drive, memoryOf, type Load, type Measured } from './load.js';
import { printScenarios, printTargets, writeResults, type ScenarioResult, type Target } from './report.js';
import { bulkArticles, scenarios, type Scenario } from './scenarios.js';
import { seedBenchVolume, VOLUME, type BenchWorld } from './seed.js';
import { accepts, SCRIPTS, startServer, type Started } from './servers.js';
import { engineTargets, PAIRS, printComparisons, type EngineMeasurements, type PairResult } from './targets.js';
import { webhookDrain, type Drain } from './webhook-drain.js';

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const SOAK_SECONDS = Number(env.BENCH_SOAK_SECONDS ?? 60);
const MYSQL_URL = env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/tpl_bench';
const PADDING = 200;
/** Rate limits raised by configuration, as an operator would for a load test. */
const SERVER_ENV = {
  RATE_LIMIT_AUTH_PER_MINUTE: '10000000',
  RATE_LIMIT_AUTH_PER_ADDRESS_PER_MINUTE: '10000000',
  RATE_LIMIT_DATA_PER_MINUTE: '10000000',
  // The rejected-token scenario measures a 401 (a credential refused: looked up once, then known as
  // rejected by the auth cache), not the 429 the failed-authentication ceiling answers once an
  // address is over it.
  RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '10000000',
  APP_URL: 'http://localhost',
  // The webhook drain's receiver listens on this machine, over http.
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
};
/** The webhook drain's burst: adjustments, one `stock.changed` delivery each. */
const DRAIN_BURST = 3000;

interface Database {
  url: string;
  drop(): Promise<void>;
}

function mysqlAnswers(): Promise<boolean> {
  const url = new URL(MYSQL_URL);
  return accepts(Number(url.port || 3306), url.hostname);
}

async function freshDatabase(engine: string): Promise<Database> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'tpl-bench-'));
    return { url: `sqlite:${path.join(dir, 'bench.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = new URL(MYSQL_URL);
  const name = url.pathname.slice(1);
  url.pathname = '/';
  const admin = knex({ client: 'mysql2', connection: url.toString() });
  await admin.raw('DROP DATABASE IF EXISTS ??', [name]);
  await admin.raw('CREATE DATABASE ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', [name]);
  return {
    url: MYSQL_URL,
    drop: async () => {
      await admin.raw('DROP DATABASE IF EXISTS ??', [name]);
      await admin.destroy();
    },
  };
}

async function seed(url: string): Promise<BenchWorld> {
  const db = createDb(url);
  try {
    await migrateLatest(db);
    const started = Date.now();
    const world = await seedBenchVolume(db);
    console.log(
      `seeded ${VOLUME.clients} clients × ${VOLUME.articlesPerClient} articles, ${VOLUME.stockRows} stock rows (${VOLUME.trackedArticles} articles with ${VOLUME.lotsPerArticle} lots), ${VOLUME.movements} movements, ${VOLUME.salesOrders} sales orders in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return world;
  } finally {
    await db.destroy();
  }
}

function unexpected(m: Measured, status: number): number {
  return m.errors + Object.entries(m.statuses).reduce((n, [code, count]) => n + (Number(code) === status ? 0 : count), 0);
}

const ROUNDS = 3;

/** The answers (statuses, errors) of two runs together. */
function answersOf(a: Measured, b: Measured): Pick<Measured, 'statuses' | 'errors'> {
  const statuses = { ...a.statuses };
  for (const [code, count] of Object.entries(b.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
  return { statuses, errors: a.errors + b.errors };
}

/**
 * The better of two runs of the same thing: the machine's noise only ever makes a run worse. The
 * answers of both are kept, so that an unexpected answer in any run shows.
 */
function better(a: Measured | undefined, b: Measured): Measured {
  if (a === undefined) return b;
  return { ...(b.rps > a.rps ? b : a), p50: Math.min(a.p50, b.p50), p99: Math.min(a.p99, b.p99), cpuUs: Math.min(a.cpuUs, b.cpuUs), ...answersOf(a, b) };
}

/** Rounds of a CPU comparison of the same server on two loads, or of two servers on one load. */
const PAIRED_ROUNDS = 7;
const PAIRED_SECONDS = 3;

/**
 * CPU per request of b over a, judged as the median of the ratios of PAIRED_ROUNDS paired rounds
 * (which of the two goes first alternates): the machine's slow spells hit both runs of a round
 * alike, and one slow round cannot decide. Also the best run of each, for the report.
 */
async function pairedCpuRatio(a: (seconds: number) => Promise<Measured>, b: (seconds: number) => Promise<Measured>): Promise<{ a: Measured; b: Measured; ratio: number }> {
  await a(2);
  await b(2);
  let bestA: Measured | undefined;
  let bestB: Measured | undefined;
  const ratios: number[] = [];
  for (let round = 0; round < PAIRED_ROUNDS; round++) {
    let runA: Measured;
    let runB: Measured;
    if (round % 2 === 0) {
      runA = await a(PAIRED_SECONDS);
      runB = await b(PAIRED_SECONDS);
    } else {
      runB = await b(PAIRED_SECONDS);
      runA = await a(PAIRED_SECONDS);
    }
    bestA = better(bestA, runA);
    bestB = better(bestB, runB);
    ratios.push(runB.cpuUs / runA.cpuUs);
  }
  ratios.sort((x, y) => x - y);
  return { a: bestA!, b: bestB!, ratio: ratios[Math.floor(ratios.length / 2)]! };
}

/**
 * The scenarios of a group (one scenario, or those sharing `group`) on the full stack and on the
 * baseline: each warmed up on both sides, then ROUNDS rounds that run every scenario on the full
 * stack and then on the baseline (the group's order reversed every other round); each keeps its
 * best figures, and the answers of every run, the warm-up's too.
 */
async function measure(full: Started, baseline: Started, group: readonly Scenario[]): Promise<Array<{ full: Measured; baseline: Measured }>> {
  const sides = group.map((s) => {
    const run = s.amount !== undefined ? { amount: s.amount } : { seconds: SECONDS };
    const warm = s.amount !== undefined ? { amount: Math.max(CONNECTIONS, Math.ceil(s.amount / 7)) } : { seconds: 2 };
    return {
      full: (warming: boolean) => drive(full, s.load, warming ? warm : run),
      baseline: (warming: boolean) => drive(baseline, s.load, warming ? warm : run),
      best: { full: undefined as Measured | undefined, baseline: undefined as Measured | undefined },
      warmed: { full: undefined as Measured | undefined, baseline: undefined as Measured | undefined },
    };
  });
  for (const side of sides) {
    side.warmed.full = await side.full(true);
    side.warmed.baseline = await side.baseline(true);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      side.best.full = better(side.best.full, await side.full(false));
      side.best.baseline = better(side.best.baseline, await side.baseline(false));
    }
  }
  return sides.map(({ best, warmed }) => ({
    full: { ...best.full!, ...answersOf(best.full!, warmed.full!) },
    baseline: { ...best.baseline!, ...answersOf(best.baseline!, warmed.baseline!) },
  }));
}

/**
 * A client's first load through the API as the onboarding chapter shows it: 20,000 new articles in
 * 40 bulk requests of 500, one after another, each with its Idempotency-Key (wall time, s).
 */
async function firstLoad(full: Started, world: BenchWorld): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < 40; i++) {
    const res = await fetch(`http://127.0.0.1:${full.port}/api/articles/bulk`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${world.token}`,
        'X-Company-Id': String(world.companyId),
        'Content-Type': 'application/json',
        'Idempotency-Key': `load-${process.pid}-${i}`,
      },
      body: bulkArticles(500, `LOAD-${i}`),
    });
    const body = (await res.json()) as { meta?: { created: number } };
    if (res.status !== 200 || body.meta?.created !== 500) throw new Error(`first load: request ${i} answered ${res.status} ${JSON.stringify(body.meta)}`);
  }
  return (performance.now() - started) / 1000;
}

/** RSS once a second under steady reads; growth = mean of the last 10 samples − mean of the first 10. */
async function soak(server: Started, load: Load): Promise<{ samples: number[]; growthMb: number }> {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(memoryOf(server.pid).rssMb), 1000);
  await drive(server, load, { seconds: SOAK_SECONDS });
  clearInterval(timer);
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
  return { samples, growthMb: mean(samples.slice(-10)) - mean(samples.slice(0, 10)) };
}

/** The same GET on the bundled and the padded document: requests/s, and CPU per request (the judged figure). */
async function paddedRatio(dbUrl: string, load: Load): Promise<{ bundled: Measured; padded: Measured; rpsRatio: number; cpuRatio: number }> {
  const bundled = await startServer('api (bundled document)', SCRIPTS.app, { ...SERVER_ENV, DATABASE_URL: dbUrl, WORKER: 'off' });
  const padded = await startServer(`api (+${PADDING} operations)`, SCRIPTS.app, { ...SERVER_ENV, DATABASE_URL: dbUrl, WORKER: 'off', BENCH_PADDING: String(PADDING) });
  try {
    const { a, b, ratio } = await pairedCpuRatio(
      (seconds) => drive(bundled, load, { seconds }),
      (seconds) => drive(padded, load, { seconds }),
    );
    const within = (x: number): number => Math.min(x, 1 / x);
    return { bundled: a, padded: b, rpsRatio: within(a.rps / b.rps), cpuRatio: within(ratio) };
  } finally {
    await Promise.all([bundled.stop(), padded.stop()]);
  }
}

/**
 * Waits (at most a minute) until the API's background work has caught up with the writes before:
 * every event fanned out by its webhook worker, every event and movement stamped for the feeds.
 * Each scenario is then measured on its own requests, not on the leftovers of the one before it
 * (the baseline runs neither the worker nor the stamper).
 */
async function settled(url: string): Promise<void> {
  const db = createDb(url);
  try {
    const waiting = async (): Promise<number> => {
      const count = async (query: Knex.QueryBuilder): Promise<number> => Number(((await query.count({ n: '*' }).first()) as { n: number | string }).n);
      const events = await count(db('outbox_events').whereNull('dispatched_at').whereNull('fan_out_failed_at'));
      const unstamped = await count(db('outbox_events').whereNull('feed_seq'));
      return events + unstamped + (await count(db('stock_movements').whereNull('feed_seq')));
    };
    for (const started = Date.now(); (await waiting()) > 0 && Date.now() - started < 60_000; ) await new Promise((resolve) => setTimeout(resolve, 250));
  } finally {
    await db.destroy();
  }
}

/** The scenario whose name has `text`. */
function byName(all: Scenario[], text: string): Scenario {
  const found = all.find((s) => s.name.includes(text));
  if (!found) throw new Error(`no scenario named like ${text}`);
  return found;
}

async function benchEngine(engine: string): Promise<{ results: ScenarioResult[]; targets: Target[]; memory: object; drain?: (Drain | { error: string }) & { engine: string } }> {
  console.log(`\n=== ${engine} ===`);
  const database = await freshDatabase(engine);
  try {
    const world = await seed(database.url);
    const serverEnv = { ...SERVER_ENV, DATABASE_URL: database.url };
    const full = await startServer('api', SCRIPTS.api, serverEnv);
    const baseline = await startServer('baseline', SCRIPTS.baseline, { DATABASE_URL: database.url, BENCH_TOKEN: world.token, BENCH_COMPANY_ID: String(world.companyId) });
    const results: ScenarioResult[] = [];
    const pairs: PairResult[] = [];
    const measured: EngineMeasurements = { results, pairs, peakMb: NaN };
    let soakSamples: number[] = [];
    let drain: ((Drain | { error: string }) & { engine: string }) | undefined;
    const all = scenarios(world);
    const selected = all.filter((s) => !env.BENCH_ONLY || s.name.includes(env.BENCH_ONLY));
    try {
      const done = new Set<Scenario>();
      for (const first of selected) {
        if (done.has(first)) continue;
        const group = first.group === undefined ? [first] : selected.filter((s) => s.group === first.group);
        await settled(database.url);
        for (const [i, m] of (await measure(full, baseline, group)).entries()) {
          const s = group[i]!;
          done.add(s);
          const result = { engine, name: s.name, kind: s.kind, ...m, ratio: m.full.rps / m.baseline.rps, unexpected: unexpected(m.full, s.expect) + unexpected(m.baseline, s.expect) };
          results.push(result);
          console.log(`  ${s.name}: ${result.full.rps.toFixed(0)} r/s, baseline ${result.baseline.rps.toFixed(0)} r/s (${result.ratio.toFixed(2)})`);
        }
      }
      measured.peakMb = memoryOf(full.pid).peakMb;
      if (!env.BENCH_ONLY || env.BENCH_ONLY.includes('bulk')) {
        await settled(database.url);
        measured.loadSeconds = await firstLoad(full, world);
        console.log(`  first load: 20,000 articles in 40 bulk requests: ${measured.loadSeconds.toFixed(1)} s`);
      }
      // Every pair in a whole run (a pair whose scenario is missing fails there); with BENCH_ONLY, those whose two scenarios ran.
      for (const pair of PAIRS.filter((p) => !env.BENCH_ONLY || [p.a, p.b].every((name) => selected.some((s) => s.name.includes(name))))) {
        console.log(`  ${pair.label}: alternating`);
        // Their CPU per request (the cost of a page, which other load on the machine changes least),
        // not requests/s measured minutes apart on a shared machine.
        const page = (text: string) => (seconds: number) => drive(full, byName(all, text).load, { seconds });
        await settled(database.url);
        const { a, b, ratio } = await pairedCpuRatio(page(pair.a), page(pair.b));
        pairs.push({ pair, a, b, cpuRatio: ratio });
        console.log(`    ratio ${ratio.toFixed(2)} (at most ${pair.limit})`);
      }
      if (!env.BENCH_ONLY) {
        console.log(`  soak: ${SOAK_SECONDS} s of ${all[0]!.name}`);
        const soaked = await soak(full, all[0]!.load);
        soakSamples = soaked.samples;
        measured.soak = { seconds: SOAK_SECONDS, growthMb: soaked.growthMb };
      }
      // Last: its subscription makes every write a delivery, which no scenario above should pay.
      // Reported, judged by no target: a failure is reported and the run goes on.
      if (!env.BENCH_ONLY || env.BENCH_ONLY.includes('webhook')) {
        await settled(database.url);
        try {
          const drained = await webhookDrain(full, database.url, world.companyId, { load: byName(all, '/api/stock/adjustments').load, amount: DRAIN_BURST });
          drain = { engine, ...drained };
          console.log(
            `  webhook drain: ${drained.deliveries} deliveries of a burst of adjustments (${drained.burstSeconds.toFixed(1)} s), the last ${drained.drainSeconds.toFixed(1)} s after it: ${drained.perSecond.toFixed(0)}/s (reported, no target)`,
          );
        } catch (error) {
          drain = { engine, error: String(error) };
          console.log(`  webhook drain failed: ${String(error)}`);
        }
      }
    } finally {
      await Promise.all([full.stop(), baseline.stop()]);
    }
    if (!env.BENCH_ONLY) {
      const padded = await paddedRatio(database.url, all[0]!.load);
      measured.padded = { operations: PADDING, cpuRatio: padded.cpuRatio };
      const show = (m: Measured): string => `${m.rps.toFixed(0)} r/s, ${m.cpuUs.toFixed(0)} µs CPU/request`;
      console.log(`  padded document: bundled ${show(padded.bundled)}; +${PADDING} operations ${show(padded.padded)} (r/s ratio ${padded.rpsRatio.toFixed(2)})`);
    }
    printComparisons(results, pairs);
    // With BENCH_ONLY, the targets of what ran: printed, not judged (main).
    const targets = engineTargets(engine, measured);
    const memory = measured.soak ? { engine, peakMb: measured.peakMb, soakSamplesMb: soakSamples.map((m) => Math.round(m)), growthMb: measured.soak.growthMb } : { engine, peakMb: measured.peakMb };
    return { results, targets, memory, drain };
  } finally {
    await database.drop();
  }
}

async function main(): Promise<void> {
  const engines = env.BENCH_DB ? env.BENCH_DB.split(',').map((e) => e.trim()) : ['sqlite', ...((await mysqlAnswers()) ? ['mysql'] : [])];
  if (!env.BENCH_DB && engines.length === 1) console.log(`MariaDB does not answer at ${MYSQL_URL}: only SQLite is benched.`);
  const scenarioResults: ScenarioResult[] = [];
  const targets: Target[] = [];
  const memory: object[] = [];
  const drains: object[] = [];
  for (const engine of engines) {
    const out = await benchEngine(engine);
    scenarioResults.push(...out.results);
    targets.push(...out.targets);
    memory.push(out.memory);
    if (out.drain) drains.push(out.drain);
  }
  for (const engine of engines) printScenarios(engine, scenarioResults.filter((r) => r.engine === engine));
  printTargets(targets, engines);
  const file = writeResults({ engines, scenarios: scenarioResults, targets, memory, webhookDrain: drains });
  const failed = targets.filter((t) => !t.pass);
  const failing = engines.map((engine) => `${failed.filter((t) => t.engine === engine).length} on ${engine}`).join(', ');
  const verdict = env.BENCH_ONLY ? 'Targets are not judged with BENCH_ONLY' : failed.length === 0 ? `Every target passes on ${engines.join(' and ')}` : `Targets fail: ${failing}`;
  console.log(`\n${verdict}. Results: ${path.relative(process.cwd(), file)}`);
  process.exitCode = env.BENCH_ONLY || failed.length === 0 ? 0 : 1;
}

await main();
