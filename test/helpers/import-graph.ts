/**
 * The import graph of src/ (and what src/ imports from db/), read from the source's import and
 * export-from statements (type-only ones included: a type cycle is a design cycle too), and the
 * rules of the house checked over it: architecture.md's layers, made a test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type ImportGraph = Map<string, string[]>;

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The project-relative files each file of `srcDir` imports (relative imports only; `.js` resolved to `.ts`). */
export function readImportGraph(root: string, srcDir = 'src'): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of filesUnder(join(root, srcDir))) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3];
      if (!spec?.startsWith('.')) continue;
      targets.push(relative(root, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))));
    }
    graph.set(relative(root, file), targets);
  }
  return graph;
}

const componentOf = (file: string) => /^src\/components\/([^/]+)\//.exec(file)?.[1];

/** Every broken rule, as a sentence naming the files. */
export function houseRuleViolations(graph: ImportGraph): string[] {
  const problems: string[] = [];
  const folderPairs = new Map<string, string>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (from.startsWith('src/platform/') && to.startsWith('src/components/')) problems.push(`platform imports a component: ${from} -> ${to}`);
      if (from.startsWith('src/kernel/') && to.startsWith('src/') && !to.startsWith('src/kernel/')) problems.push(`kernel imports outside the kernel: ${from} -> ${to}`);
      if (from.startsWith('src/') && to.startsWith('db/seeds/')) problems.push(`src imports db/seeds: ${from} -> ${to}`);
      const [a, b] = [componentOf(from), componentOf(to)];
      if (a && b && a !== b) {
        if (/\.repository\.ts$/.test(to)) problems.push(`a component imports another's repository: ${from} -> ${to}`);
        folderPairs.set(`${a}>${b}`, `${from} -> ${to}`);
      }
    }
  }
  for (const [pair, example] of folderPairs) {
    const [a, b] = pair.split('>');
    if (a! < b! && folderPairs.has(`${b}>${a}`)) problems.push(`components ${a} and ${b} import each other: ${example} and ${folderPairs.get(`${b}>${a}`)}`);
  }
  for (const cycle of importCycles(graph)) problems.push(`import cycle: ${cycle.join(' -> ')}`);
  return problems;
}

/** The cycles of the graph, one per strongly connected component of more than one file (or a self-import). */
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
