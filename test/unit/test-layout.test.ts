/**
 * The tests are laid out so a newcomer finds them: every operation of the document has a
 * `describe('<METHOD> <path>')` (a title may name several, joined by "and"), and the files of
 * test/api are named `<area>[-<aspect>].test.ts`, where the area is a component of src/components,
 * a module of src/platform, or `app` (the request path as a whole).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
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

/** Whether a test/api file name follows the rule, given the areas. */
export function followsNamingRule(file: string, areas: ReadonlySet<string>): boolean {
  const name = basename(file, '.test.ts');
  const parts = name.split('-');
  return parts.some((_, i) => areas.has(parts.slice(0, i + 1).join('-')));
}

describe('Test layout', () => {
  const testFiles = filesUnder(join(projectRoot, 'test'), '.test.ts');

  it('When the test files are read, Then every operation of the document has a describe titled with its method and path', () => {
    const titles = testFiles.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/describe\(\s*['"`]([^'"`]*)['"`]/g)].map((m) => m[1]!));
    const named = operationsNamed(titles);
    const missing = operations.map((op) => `${op.method.toUpperCase()} ${op.path}`).filter((id) => !named.has(id));
    expect(missing).to.deep.equal([]);
  });

  it('When test/api is listed, Then each file is named for a component, a platform module or the app', () => {
    const components = readdirSync(join(projectRoot, 'src/components'));
    const platform = filesUnder(join(projectRoot, 'src/platform'), '.ts').map((f) => basename(f, '.ts'));
    const areas = new Set([...components, ...platform, 'app']);
    const misnamed = readdirSync(join(projectRoot, 'test/api')).filter((f) => f.endsWith('.test.ts') && !followsNamingRule(f, areas));
    expect(misnamed).to.deep.equal([]);
  });

  it('When titles or names break the rules, Then the checks say so', () => {
    expect([...operationsNamed(['GET /api/returns and GET /api/returns/{id}', 'POST /api/webhooks: refused bodies', 'Webhook subscriptions'])]).to.deep.equal([
      'GET /api/returns',
      'GET /api/returns/{id}',
      'POST /api/webhooks',
    ]);
    const areas = new Set(['articles', 'sales-orders']);
    expect(followsNamingRule('sales-orders-status.test.ts', areas)).to.equal(true);
    expect(followsNamingRule('outbound-flow.test.ts', areas)).to.equal(false);
  });
});
