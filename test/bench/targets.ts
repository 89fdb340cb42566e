/**
 * The benchmark's targets (docs/performance.md): their limits, the paired CPU comparisons, and
 * the targets read off an engine's measurements. Each engine is judged against its own baseline
 * of the same run; a target whose scenario had an unexpected answer fails (NaN).
 */
import type { Measured } from './load.js';
import { target, type ScenarioResult, type Target } from './report.js';
import { DELIVERED, DELIVERED_FEFO, GRAPHQL } from './scenarios.js';

export const LIMITS = {
  /** Every REST read, full/baseline r/s, at least. */
  restRead: 0.85,
  /** GraphQL `articles(limit: 50)`, full/baseline r/s, at least. */
  graphql: 0.8,
  /** The rejected token, full/baseline r/s, at least: cheap rejection is the defence against floods. */
  rejection: 0.75,
  /** Every write, p99 full/baseline, at most. */
  writeP99: 1.3,
  /** The FEFO delivery's p99 over the delivery without lots, both on the full stack, at most. */
  fefoP99: 1.5,
  /** A bulk of 500 new articles, full/baseline r/s, at least. */
  bulk: 0.8,
  /** A client's first load (20,000 articles in 40 bulk requests), seconds, at most. */
  firstLoadSeconds: 30,
  peakRssMb: 200,
  soakGrowthMb: 10,
  /** The padded document against the bundled one, CPU per request (the nearer to 1 of it and its inverse), at least. */
  padded: 0.9,
} as const;

/**
 * The paired CPU comparisons: b's CPU per request over a's on the full stack, the median of paired
 * rounds (run.ts, pairedCpuRatio), each run when the scenarios named by a and b both ran.
 */
export const PAIRS = [
  { label: 'sync feed: last page / first page, CPU per request (keyset)', a: '/api/articles/sync?per_page=500 (first', b: '/api/articles/sync?per_page=500 (last', limit: 1.2 },
  { label: 'events feed: last page / first page, CPU per request', a: '/api/events?per_page=500 (first', b: '/api/events?per_page=500 (last', limit: 1.2 },
  { label: 'stock movements feed: last page / first page, CPU per request', a: '/api/stock/movements?per_page=500 (first', b: '/api/stock/movements?per_page=500 (last', limit: 1.2 },
  { label: 'events page / sync page, 500 each (first pages), CPU per request', a: '/api/articles/sync?per_page=500 (first', b: '/api/events?per_page=500 (first', limit: 1.2 },
  { label: 'stock as of a time / stock page, CPU per request', a: 'GET /api/stock?per_page=100', b: 'GET /api/stock/as-of?per_page=100', limit: 3 },
] as const;

export type Pair = (typeof PAIRS)[number];

export interface PairResult {
  pair: Pair;
  a: Measured;
  b: Measured;
  cpuRatio: number;
}

/** What an engine's run measured; what did not run (BENCH_ONLY) is absent and has no target. */
export interface EngineMeasurements {
  results: readonly ScenarioResult[];
  pairs: readonly PairResult[];
  /** Seconds of the first load. */
  loadSeconds?: number;
  peakMb: number;
  soak?: { seconds: number; growthMb: number };
  padded?: { operations: number; cpuRatio: number };
}

/** The figure, or NaN (a failure) when the scenario had an answer of another status than it expects. */
const unlessUnexpected = (r: ScenarioResult, figure: number): number => (r.unexpected ? NaN : figure);

/** The targets read off the scenarios alone, in the order they are printed. */
function scenarioTargets(engine: string, results: readonly ScenarioResult[]): Target[] {
  const of = (kind: ScenarioResult['kind']) => results.filter((r) => r.kind === kind);
  const plain = results.find((r) => r.name === DELIVERED);
  const fefo = results.find((r) => r.name === DELIVERED_FEFO);
  const rps = (r: ScenarioResult, limit: number, what: string) => target(engine, `${what}: ${r.name}, full/baseline r/s`, unlessUnexpected(r, r.ratio), 'min', limit);
  return [
    ...of('read').map((r) => rps(r, r.name === GRAPHQL ? LIMITS.graphql : LIMITS.restRead, 'reads')),
    ...of('rejection').map((r) => rps(r, LIMITS.rejection, 'rejection')),
    ...of('bulk').map((r) => rps(r, LIMITS.bulk, 'bulk')),
    ...of('write').map((r) => target(engine, `writes: ${r.name}, p99 full/baseline`, unlessUnexpected(r, r.full.p99 / r.baseline.p99), 'max', LIMITS.writeP99)),
    ...(plain && fefo
      ? [target(engine, 'writes: delivered FEFO over 20 lots / delivered without lots, p99 full stack', plain.unexpected || fefo.unexpected ? NaN : fefo.full.p99 / plain.full.p99, 'max', LIMITS.fefoP99)]
      : []),
  ];
}

/** Every target of what the engine's run measured. */
export function engineTargets(engine: string, m: EngineMeasurements): Target[] {
  const byScenarios = scenarioTargets(engine, m.results);
  const reads = byScenarios.filter((t) => !t.name.startsWith('writes:'));
  const writes = byScenarios.filter((t) => t.name.startsWith('writes:'));
  return [
    ...reads,
    ...m.pairs.map((p) => target(engine, p.pair.label, p.cpuRatio, 'max', p.pair.limit)),
    ...(m.loadSeconds !== undefined ? [target(engine, 'first load: 20,000 articles in 40 bulk requests (s)', m.loadSeconds, 'max', LIMITS.firstLoadSeconds)] : []),
    ...writes,
    target(engine, 'memory: peak RSS under load (MB)', m.peakMb, 'max', LIMITS.peakRssMb),
    ...(m.soak ? [target(engine, `memory: RSS growth over a ${m.soak.seconds} s soak (MB)`, m.soak.growthMb, 'max', LIMITS.soakGrowthMb)] : []),
    ...(m.padded ? [target(engine, `document: +${m.padded.operations} operations vs bundled, CPU/request ratio`, m.padded.cpuRatio, 'min', LIMITS.padded)] : []),
  ];
}

const show = (m: Measured): string => `${m.rps.toFixed(0)} r/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.cpuUs.toFixed(0)} µs CPU/request`;

/** The figures behind the comparisons (the paired pages, the two deliveries, bulk, the rejected token). */
export function printComparisons(results: readonly ScenarioResult[], pairs: readonly PairResult[]): void {
  for (const { pair, a, b, cpuRatio } of pairs) console.log(`  ${pair.label}: ${cpuRatio.toFixed(2)} (${show(a)} vs ${show(b)})`);
  const plain = results.find((r) => r.name === DELIVERED);
  const fefo = results.find((r) => r.name === DELIVERED_FEFO);
  if (plain && fefo) {
    console.log(`  delivered without lots: ${show(plain.full)}; FEFO over 20 lots: ${show(fefo.full)}`);
    console.log(
      `    FEFO / without lots: p99 ${(fefo.full.p99 / plain.full.p99).toFixed(2)}, CPU per request ${(fefo.full.cpuUs / plain.full.cpuUs).toFixed(2)} (baseline: p99 ${(fefo.baseline.p99 / plain.baseline.p99).toFixed(2)}, CPU ${(fefo.baseline.cpuUs / plain.baseline.cpuUs).toFixed(2)})`,
    );
  }
  for (const r of results.filter((x) => x.kind === 'bulk' || x.kind === 'rejection')) {
    console.log(`  ${r.name}: ${show(r.full)}; baseline ${show(r.baseline)} (${r.ratio.toFixed(2)}, ${r.unexpected} unexpected answers)`);
  }
}
