import { expect } from 'chai';
import { houseRuleViolations, importCycles, readImportGraph, type ImportGraph } from '../helpers/import-graph.js';
import { projectRoot } from '../../src/platform/project-root.js';

const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('Architecture: the import rules of the house (architecture.md)', () => {
  it('When src/ is read, Then no rule is broken: platform and kernel import no component, no component imports another\'s repository or a folder that imports it back, nothing imports db/seeds, and there is no import cycle', () => {
    const graph = readImportGraph(projectRoot);
    expect(graph.size, 'files read under src/').to.be.greaterThan(100);
    expect(houseRuleViolations(graph)).to.deep.equal([]);
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
    expect(problems.some((p) => p.startsWith("a component imports another's repository"))).to.equal(true);
    expect(problems.some((p) => p.startsWith('components articles and stock import each other'))).to.equal(true);
    expect(problems.some((p) => p.startsWith('import cycle: src/components/a/'))).to.equal(true);
  });

  it('When files import each other in a ring of three, Then the cycle is found once with every member', () => {
    const cycles = importCycles(graphOf({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }));
    expect(cycles).to.have.length(1);
    expect(new Set(cycles[0])).to.deep.equal(new Set(['a', 'b', 'c']));
  });
});
