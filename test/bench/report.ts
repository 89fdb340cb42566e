/** The benchmark's targets, its printed tables and results.json. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/platform/project-root.js';
import type { Measured } from './load.js';
import type { ScenarioKind } from './scenarios.js';

export interface ScenarioResult {
  engine: string;
  name: string;
  kind: ScenarioKind;
  full: Measured;
  baseline: Measured;
  /** Full over baseline requests/s. */
  ratio: number;
  /** Answers of another status than the scenario expects, on either side. */
  unexpected: number;
}

export interface Target {
  engine: string;
  name: string;
  measured: number;
  limit: number;
  /** `min`: measured must be at least the limit; `max`: at most. */
  bound: 'min' | 'max';
  pass: boolean;
}

export function target(engine: string, name: string, measured: number, bound: 'min' | 'max', limit: number): Target {
  const pass = Number.isFinite(measured) && (bound === 'min' ? measured >= limit : measured <= limit);
  return { engine, name, measured: Math.round(measured * 1000) / 1000, limit, bound, pass };
}

const pad = (value: string | number, width: number): string => String(value).padStart(width);
const fixed = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

export function printScenarios(engine: string, results: ScenarioResult[]): void {
  console.log(`\n${engine}: requests/s and latency (ms), full stack vs bare node:http baseline`);
  const width = Math.max(54, ...results.map((r) => r.name.length + 2));
  console.log(`${'scenario'.padEnd(width)}${pad('full r/s', 10)}${pad('p50', 7)}${pad('p99', 7)}${pad('µs CPU', 8)}${pad('base r/s', 10)}${pad('p50', 7)}${pad('p99', 7)}${pad('µs CPU', 8)}${pad('ratio', 7)}`);
  for (const r of results) {
    const flag = r.unexpected > 0 ? `  (${r.unexpected} unexpected answers: ${JSON.stringify(r.full.statuses)} / ${JSON.stringify(r.baseline.statuses)})` : '';
    console.log(
      `${r.name.padEnd(width)}${pad(fixed(r.full.rps, 0), 10)}${pad(fixed(r.full.p50), 7)}${pad(fixed(r.full.p99), 7)}${pad(fixed(r.full.cpuUs, 0), 8)}` +
        `${pad(fixed(r.baseline.rps, 0), 10)}${pad(fixed(r.baseline.p50), 7)}${pad(fixed(r.baseline.p99), 7)}${pad(fixed(r.baseline.cpuUs, 0), 8)}${pad(fixed(r.ratio, 2), 7)}${flag}`,
    );
  }
}

/** One line per target, a column per engine: every engine's figure decides pass/fail. */
export function printTargets(targets: Target[], engines: string[]): void {
  console.log(`\nTargets (every engine decides: ${engines.join(', ')})`);
  const names = [...new Set(targets.map((t) => t.name))];
  const width = Math.max(76, ...names.map((name) => name.length + 2));
  console.log(`${'target'.padEnd(width)}${pad('limit', 9)}${engines.map((e) => pad(e, 16)).join('')}`);
  for (const name of names) {
    const first = targets.find((t) => t.name === name)!;
    const cells = engines.map((engine) => {
      const t = targets.find((x) => x.name === name && x.engine === engine);
      return pad(t ? `${fixed(t.measured, 2)} ${t.pass ? 'pass' : 'FAIL'}` : '-', 16);
    });
    console.log(`${name.padEnd(width)}${pad(`${first.bound === 'min' ? '≥' : '≤'} ${first.limit}`, 9)}${cells.join('')}`);
  }
}

export function writeResults(results: { engines: string[]; scenarios: ScenarioResult[]; targets: Target[]; memory: object[]; webhookDrain: object[] }): string {
  const file = path.join(projectRoot, 'test', 'bench', 'results.json');
  writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), ...results }, null, 2)}\n`);
  return file;
}
