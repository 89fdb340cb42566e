import { expect } from 'chai';
import { inLockOrder } from '../../../src/components/stock/stock.service.js';

describe('inLockOrder (the one order in which a transaction changes several stock balances)', () => {
  const key = (l: { article: number; type?: string }) => ({ articleId: l.article, stockType: l.type });

  it('When lines name articles out of order, Then they come by article id, each with the index it had', () => {
    const lines = [{ article: 9 }, { article: 2 }, { article: 5 }];
    expect(inLockOrder(lines, key)).to.deep.equal([
      { line: { article: 2 }, index: 1 },
      { line: { article: 5 }, index: 2 },
      { line: { article: 9 }, index: 0 },
    ]);
  });

  it('When two documents hold the same articles in opposite order, Then both are taken in the same order', () => {
    const a = inLockOrder([{ article: 7 }, { article: 3 }], key).map((l) => l.line.article);
    const b = inLockOrder([{ article: 3 }, { article: 7 }], key).map((l) => l.line.article);
    expect(a).to.deep.equal([3, 7]).and.to.deep.equal(b);
  });

  it('When one article comes with several stock types or twice with one, Then stock type orders them, then the original index', () => {
    const lines = [
      { article: 4, type: 'STOC_QUARANTINE' },
      { article: 4, type: 'STOC_DEFECT' },
      { article: 4, type: 'STOC_DEFECT' },
      { article: 1, type: 'STOC_OK' },
    ];
    expect(inLockOrder(lines, key).map((l) => l.index)).to.deep.equal([3, 1, 2, 0]);
  });

  it('When there are no lines, Then there is nothing to take', () => {
    expect(inLockOrder([], key)).to.deep.equal([]);
  });

  it('When balances differ only by warehouse (a transfer between warehouses), Then they come by warehouse id, after article and stock type', () => {
    const places = [
      { articleId: 4, stockType: 'STOC_OK', warehouseId: 9 },
      { articleId: 4, stockType: 'STOC_OK', warehouseId: 2 },
      { articleId: 4, stockType: 'STOC_DEFECT', warehouseId: 9 },
      { articleId: 1, stockType: 'STOC_OK', warehouseId: 9 },
    ];
    expect(inLockOrder(places, (p) => p).map((l) => l.index)).to.deep.equal([3, 2, 1, 0]);
    expect(inLockOrder([places[0]!, places[1]!], (p) => p).map((l) => l.line.warehouseId)).to.deep.equal(inLockOrder([places[1]!, places[0]!], (p) => p).map((l) => l.line.warehouseId));
  });
});
