/**
 * The tests are laid out so a newcomer finds them: every operation of the document has a
 * `describe('<METHOD> <path>')` (a title may name several, joined by "and"), and every test file
 * under test/ is named `<area>[-<aspect>].test.ts` (test/api/sales-orders-status.test.ts), or sits
 * in a folder named for its area and names its aspect (test/webhooks/retries.test.ts,
 * test/graphql/cost.test.ts). An area is what the test is about: a component of src/components, a
 * module or folder of src/, db/ or codegen/ (`sales-orders.rules`, `database`, `migrations`), a
 * test helper it tests (`contract-check`), a file at the project's root (`makefile`), `app` (the
 * request path as a whole), a folder of tests over the whole document (sweeps, fuzz, sdk), or one
 * of the house's own checks (architecture, catalog, test-layout). Aspects are kebab-case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../src/platform/project-root.js';
import { operations } from '../helpers/operations.js';

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path, suffix);
    return entry.name.endsWith(suffix) ? [path] : [];
  });
}

/** The "METHOD /path" pairs that describe titles name. */
export function operationsNamed(titles: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (const title of titles) {
    for (const match of title.matchAll(/(?:^|\band )(GET|POST|PUT|PATCH|DELETE) (\/\S*)/g)) named.add(`${match[1]} ${match[2]!.replace(/[,:]$/, '')}`);
  }
  return named;
}

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Folders of tests over the whole document, and the house's own checks: areas with no module of their own. */
export const WHOLE_DOCUMENT_AREAS = ['sweeps', 'fuzz', 'sdk', 'architecture', 'catalog', 'test-layout'];

/**
 * Whether a test file (its path under test/) follows the rule, given the areas: its name is an
 * area, or an area and a kebab-case aspect; or its folder is an area and its name a kebab-case aspect.
 */
export function followsNamingRule(file: string, areas: ReadonlySet<string>): boolean {
  const name = basename(file, '.test.ts');
  const folder = basename(dirname(file));
  if (areas.has(folder) && KEBAB.test(name)) return true;
  if (areas.has(name)) return true;
  const parts = name.split('-');
  return parts.some((_, i) => areas.has(parts.slice(0, i + 1).join('-')) && KEBAB.test(parts.slice(i + 1).join('-') || 'x'));
}

/** The areas of this project: its components, the modules and folders of src/, db/ and codegen/, the test helpers, the files at its root. */
export function projectAreas(root: string): Set<string> {
  const modules = ['src', 'db', 'codegen', 'test/helpers'].flatMap((dir) => filesUnder(join(root, dir), '.ts')).map((f) => basename(f, '.ts'));
  const folders = ['src', 'db'].flatMap((dir) => foldersUnder(join(root, dir)));
  const rootFiles = readdirSync(root, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name.replace(/\..*$/, '').toLowerCase()).filter(Boolean);
  return new Set([...readdirSync(join(root, 'src/components')), ...modules, ...folders, ...rootFiles, 'app', ...WHOLE_DOCUMENT_AREAS]);
}

function foldersUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => [e.name, ...foldersUnder(join(dir, e.name))]);
}

describe('Test layout', () => {
  const testFiles = filesUnder(join(projectRoot, 'test'), '.test.ts');

  it('When the test files are read, Then every operation of the document has a describe titled with its method and path', () => {
    const titles = testFiles.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/describe\(\s*['"`]([^'"`]*)['"`]/g)].map((m) => m[1]!));
    const named = operationsNamed(titles);
    const missing = operations.map((op) => `${op.method.toUpperCase()} ${op.path}`).filter((id) => !named.has(id));
    expect(missing).to.deep.equal([]);
  });

  it('When test/ is listed, Then every test file is named for its area (or sits in a folder named for it) with a kebab-case aspect', () => {
    const areas = projectAreas(projectRoot);
    const misnamed = testFiles.map((f) => relative(join(projectRoot, 'test'), f)).filter((f) => !followsNamingRule(f, areas));
    expect(misnamed).to.deep.equal([]);
  });

  it('When titles or names break the rules, Then the checks say so', () => {
    expect([...operationsNamed(['GET /api/returns and GET /api/returns/{id}', 'POST /api/webhooks: refused bodies', 'Webhook subscriptions'])]).to.deep.equal([
      'GET /api/returns',
      'GET /api/returns/{id}',
      'POST /api/webhooks',
    ]);
    const areas = new Set(['articles', 'sales-orders', 'sales-orders.rules', 'webhooks', 'graphql']);
    expect(followsNamingRule('api/sales-orders-status.test.ts', areas)).to.equal(true);
    expect(followsNamingRule('unit/components/sales-orders.rules.test.ts', areas)).to.equal(true);
    expect(followsNamingRule('webhooks/retries.test.ts', areas)).to.equal(true);
    expect(followsNamingRule('graphql/cost.test.ts', areas)).to.equal(true);
    expect(followsNamingRule('api/outbound-flow.test.ts', areas)).to.equal(false);
    expect(followsNamingRule('graphql/cost.graphql.test.ts', areas), 'an aspect is kebab-case').to.equal(false);
    expect(followsNamingRule('faults/shutdown.test.ts', areas), 'a folder that is no area names nothing').to.equal(false);
    expect(followsNamingRule('api/articles_Bulk.test.ts', areas)).to.equal(false);
  });
});
