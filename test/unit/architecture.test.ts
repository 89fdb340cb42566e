import { expect } from 'chai';
import { houseRuleViolations, importCycles, readSourceGraph, type ImportGraph } from '../helpers/import-graph.js';
import { projectRoot } from '../../src/platform/project-root.js';

const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('Architecture: the import rules of the house (docs/development.md)', () => {
  it("When src/ is read, Then no rule is broken: platform and kernel import no component, no component imports another's repository (directly or through a re-export), component folders import each other in no ring, nothing imports db/seeds, and there is no import cycle", () => {
    const { imports, reexports } = readSourceGraph(projectRoot);
    expect(imports.size, 'files read under src/').to.be.greaterThan(100);
    expect(houseRuleViolations(imports, reexports)).to.deep.equal([]);
  });

  it('When a graph breaks each rule, Then each is named', () => {
    const problems = houseRuleViolations(
      graphOf({
        'src/platform/http/x.ts': ['src/components/articles/articles.service.ts'],
        'src/kernel/k.ts': ['src/platform/errors.ts'],
        'src/cli/c.ts': ['db/seeds/builders.ts'],
        'src/components/articles/articles.service.ts': ['src/components/stock/stock.repository.ts'],
        'src/components/stock/stock.service.ts': ['src/components/articles/articles.service.ts'],
        'src/components/stock/stock.repository.ts': [],
        'src/platform/errors.ts': [],
        'src/components/a/a.ts': ['src/components/a/b.ts'],
        'src/components/a/b.ts': ['src/components/a/a.ts'],
      }),
    );
    expect(problems.some((p) => p.startsWith('platform imports a component'))).to.equal(true);
    expect(problems.some((p) => p.startsWith('kernel imports outside the kernel'))).to.equal(true);
    expect(problems.some((p) => p.startsWith('src imports db/seeds'))).to.equal(true);
    expect(problems.some((p) => p.startsWith("a component imports another's repository: "))).to.equal(true);
    expect(problems.some((p) => p.startsWith('components articles, stock import each other'))).to.equal(true);
    expect(problems.some((p) => p.startsWith('import cycle: src/components/a/'))).to.equal(true);
  });

  it('When component folders import each other in a ring of three (no two of them both ways, no file cycle), Then the ring is named with an import of each step', () => {
    const problems = houseRuleViolations(
      graphOf({
        'src/components/articles/articles.service.ts': ['src/components/purchase-orders/purchase-orders.service.ts'],
        'src/components/purchase-orders/purchase-orders.service.ts': ['src/components/documents/document-lines.ts'],
        'src/components/documents/document-lines.ts': ['src/components/articles/article-lookup.ts'],
        'src/components/articles/article-lookup.ts': [],
      }),
    );
    expect(problems).to.deep.equal([
      'components articles, documents, purchase-orders import each other (articles -> purchase-orders -> documents -> articles): ' +
        'src/components/articles/articles.service.ts -> src/components/purchase-orders/purchase-orders.service.ts; ' +
        'src/components/purchase-orders/purchase-orders.service.ts -> src/components/documents/document-lines.ts; ' +
        'src/components/documents/document-lines.ts -> src/components/articles/article-lookup.ts',
    ]);
  });

  it("When a component imports a file that re-exports its own component's repository, directly or through another re-export, Then it is named like a direct import", () => {
    const imports = graphOf({
      'src/components/documents/document-lines.ts': ['src/components/articles/article-lookup.ts', 'src/components/health/health.service.ts'],
      'src/components/articles/article-lookup.ts': ['src/components/articles/lookup-inner.ts'],
      'src/components/articles/lookup-inner.ts': ['src/components/articles/articles.repository.ts'],
      'src/components/articles/articles.repository.ts': [],
      'src/components/articles/articles.service.ts': ['src/components/articles/article-lookup.ts'],
      'src/components/health/health.service.ts': ['src/components/health/health.repository.ts'],
      'src/components/health/health.repository.ts': [],
    });
    const reexports = graphOf({
      'src/components/articles/article-lookup.ts': ['src/components/articles/lookup-inner.ts'],
      'src/components/articles/lookup-inner.ts': ['src/components/articles/articles.repository.ts'],
    });
    expect(houseRuleViolations(imports, reexports)).to.deep.equal([
      "a component imports another's repository through a re-export: src/components/documents/document-lines.ts -> src/components/articles/article-lookup.ts (passes on src/components/articles/articles.repository.ts)",
    ]);
  });

  it('When files import each other in a ring of three, Then the cycle is found once with every member', () => {
    const cycles = importCycles(graphOf({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }));
    expect(cycles).to.have.length(1);
    expect(new Set(cycles[0])).to.deep.equal(new Set(['a', 'b', 'c']));
  });
});
