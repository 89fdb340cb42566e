/** InsertBatches: rows grouped for multi-row INSERTs within a count and a size. */
import { expect } from 'chai';
import { InsertBatches } from '../../../src/platform/db/insert-batches.js';

describe('InsertBatches', () => {
  /** The batches `rows` ([name, size]) make, in order. */
  const batchesOf = (rows: Array<[string, number]>, maxRows: number, maxBytes: number): string[][] => {
    const batches = new InsertBatches<string>({ maxRows, maxBytes });
    const out: string[][] = [];
    for (const [name, size] of rows) {
      const full = batches.add(name, size);
      if (full) out.push(full);
    }
    const last = batches.take();
    if (last.length > 0) out.push(last);
    return out;
  };

  it('When rows come, Then a batch closes at the row count or before the row that would pass the size, and a row over the size goes alone', () => {
    expect(batchesOf([['a', 1], ['b', 1], ['c', 1], ['d', 1], ['e', 1]], 2, 100)).to.deep.equal([['a', 'b'], ['c', 'd'], ['e']]);
    expect(batchesOf([['a', 40], ['b', 40], ['c', 40], ['big', 500], ['d', 10]], 10, 100)).to.deep.equal([['a', 'b'], ['c'], ['big'], ['d']]);
    expect(batchesOf([], 10, 100)).to.deep.equal([]);
  });
});
