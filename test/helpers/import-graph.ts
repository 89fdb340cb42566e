/**
 * The import graph of src/ (and what src/ imports from db/), read from the source's import and
 * export-from statements (type-only ones included: a type cycle is a design cycle too), and the
 * rules of the house checked over it: architecture.md's layers, made a test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** File -> the project-relative files it imports (or re-exports from). */
export type ImportGraph = Map<string, string[]>;

export interface SourceGraph {
  /** Every import and export-from of each file. */
  imports: ImportGraph;
  /** The export-from statements alone: what each file passes on of other files. */
  reexports: ImportGraph;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const REEXPORT = /(?:^|\n)\s*export\s[^'"]*?from\s+['"]([^'"]+)['"]/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function targetsOf(root: string, file: string, text: string, pattern: RegExp): string[] {
  const targets: string[] = [];
  for (const match of text.matchAll(pattern)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (!spec?.startsWith('.')) continue;
    targets.push(relative(root, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))));
  }
  return targets;
}

/** The imports and re-exports of each file of `srcDir` (relative specifiers only; `.js` resolved to `.ts`). */
export function readSourceGraph(root: string, srcDir = 'src'): SourceGraph {
  const imports: ImportGraph = new Map();
  const reexports: ImportGraph = new Map();
  for (const file of filesUnder(join(root, srcDir))) {
    const text = readFileSync(file, 'utf8');
    imports.set(relative(root, file), targetsOf(root, file, text, IMPORT));
    reexports.set(relative(root, file), targetsOf(root, file, text, REEXPORT));
  }
  return { imports, reexports };
}

/** The project-relative files each file of `srcDir` imports. */
export function readImportGraph(root: string, srcDir = 'src'): ImportGraph {
  return readSourceGraph(root, srcDir).imports;
}

const componentOf = (file: string) => /^src\/components\/([^/]+)\//.exec(file)?.[1];
const isRepository = (file: string) => /\.repository\.ts$/.test(file);

/** The repositories `file` passes on through export-from statements, directly or through files that pass them on. */
function repositoriesPassedOn(file: string, reexports: ImportGraph, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  return (reexports.get(file) ?? []).flatMap((target) => (isRepository(target) ? [target] : repositoriesPassedOn(target, reexports, seen)));
}

/** Every broken rule, as a sentence naming the files. `reexports`: the graph's export-from edges (readSourceGraph). */
export function houseRuleViolations(graph: ImportGraph, reexports: ImportGraph = new Map()): string[] {
  const problems: string[] = [];
  const folders: ImportGraph = new Map();
  const example = new Map<string, string>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (from.startsWith('src/platform/') && to.startsWith('src/components/')) problems.push(`platform imports a component: ${from} -> ${to}`);
      if (from.startsWith('src/kernel/') && to.startsWith('src/') && !to.startsWith('src/kernel/')) problems.push(`kernel imports outside the kernel: ${from} -> ${to}`);
      if (from.startsWith('src/') && to.startsWith('db/seeds/')) problems.push(`src imports db/seeds: ${from} -> ${to}`);
      const [a, b] = [componentOf(from), componentOf(to)];
      if (a && b && a !== b) {
        if (isRepository(to)) problems.push(`a component imports another's repository: ${from} -> ${to}`);
        for (const passed of repositoriesPassedOn(to, reexports)) {
          if (componentOf(passed) !== a) problems.push(`a component imports another's repository through a re-export: ${from} -> ${to} (passes on ${passed})`);
        }
        folders.set(a, [...new Set([...(folders.get(a) ?? []), b])]);
        example.set(`${a}>${b}`, `${from} -> ${to}`);
      }
    }
  }
  for (const cycle of importCycles(folders)) {
    const ring = ringThrough(folders, new Set(cycle), cycle[0]!);
    const steps = ring.slice(0, -1).map((folder, i) => example.get(`${folder}>${ring[i + 1]}`)!);
    problems.push(`components ${[...new Set(cycle)].sort().join(', ')} import each other (${ring.join(' -> ')}): ${steps.join('; ')}`);
  }
  for (const cycle of importCycles(graph)) problems.push(`import cycle: ${cycle.join(' -> ')}`);
  return [...new Set(problems)];
}

/** The cycles of the graph, one per strongly connected component of more than one node (or a self-import): its members. */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== node);
    if (members.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push([...members.reverse(), members[0]!]);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** A shortest path from `start` back to itself inside `members` (a strongly connected set): the ring to show. */
function ringThrough(graph: ImportGraph, members: ReadonlySet<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const chain: string[] = [];
        for (let at = node; at !== start; at = previous.get(at)!) chain.unshift(at);
        return [start, ...chain, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}
