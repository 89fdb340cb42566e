/** The status graph of sales orders, every pair of statuses. */
import { expect } from 'chai';
import { canMove, forbiddenMoveMessage, isOpen, TRANSITIONS, type SalesOrderStatus } from '../../../src/components/sales-orders/sales-orders.rules.js';

const STATUSES: SalesOrderStatus[] = ['new', 'picking', 'picked', 'delivered', 'cancelled'];
const ALLOWED = new Set(['new>picking', 'new>cancelled', 'picking>picked', 'picking>cancelled', 'picked>delivered', 'picked>cancelled']);

describe('sales-orders.rules', () => {
  for (const from of STATUSES) {
    for (const to of STATUSES) {
      const allowed = ALLOWED.has(`${from}>${to}`);
      it(`When an order moves from ${from} to ${to}, Then it is ${allowed ? 'allowed' : 'refused'}`, () => {
        expect(canMove(from, to)).to.equal(allowed);
        if (!allowed) expect(forbiddenMoveMessage(from, to)).to.include(`${from}`);
      });
    }
  }

  it('When a move is refused, Then the message lists the moves that are allowed', () => {
    expect(forbiddenMoveMessage('picking', 'new')).to.equal('The order cannot move from picking to new; allowed: picked, cancelled.');
    expect(forbiddenMoveMessage('delivered', 'cancelled')).to.equal('The order is delivered; it cannot move to cancelled or to any other status.');
  });

  it('When the table is read, Then it names every status, and only open orders reserve stock', () => {
    expect(Object.keys(TRANSITIONS).sort()).to.deep.equal([...STATUSES].sort());
    expect(STATUSES.filter(isOpen)).to.deep.equal(['new', 'picking', 'picked']);
  });
});
