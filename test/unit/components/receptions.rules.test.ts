/** The rules of reception corrections: what a refused raise of an order line names. */
import { expect } from 'chai';
import { overOrders, receivedChanges } from '../../../src/components/receptions/receptions.rules.js';

describe('receptions.rules', () => {
  it('When two lines of one order line are raised past it, Then each may take what the order line leaves beside the other as sent; never less than nothing', () => {
    // Ordered 10 (thousandths): 3 received by other receptions, this reception's lines A 2 and B 5.
    const [change] = receivedChanges([
      { index: 0, poItemId: 7, from: 2000, to: 4000 },
      { index: 1, poItemId: 7, from: 5000, to: 9000 },
    ]);
    const overs = overOrders(change!, { quantity: 10000, received_quantity: 10000 }, 7000);
    expect(overs.map((o) => [o.correction.index, o.wouldReceive, o.ordered, o.byOtherReceptions, o.byOtherLines, o.atMost])).to.deep.equal([
      [0, 16000, 10000, 3000, 9000, 0],
      [1, 16000, 10000, 3000, 4000, 3000],
    ]);
  });

  it('When one line is raised and another of its order line lowered, Then the raised line may take what the lowered one gives back', () => {
    const [change] = receivedChanges([
      { index: 0, poItemId: 7, from: 400, to: 500 },
      { index: 1, poItemId: 7, from: 600, to: 550 },
    ]);
    expect(overOrders(change!, { quantity: 1000, received_quantity: 1000 }, 1000).map((o) => [o.correction.index, o.wouldReceive, o.byOtherLines, o.atMost])).to.deep.equal([[0, 1050, 550, 450]]);
  });
});
