/** The status graph of sales orders, every pair of statuses, and the rules of shipping. */
import { expect } from 'chai';
import {
  canMove,
  forbiddenMoveMessage,
  heldMoveRefusal,
  isOpen,
  leftToShip,
  notHoldableMessage,
  shippingRefusal,
  statusAfterShipment,
  TRANSITIONS,
  type SalesOrderStatus,
} from '../../../src/components/sales-orders/sales-orders.rules.js';

const STATUSES: SalesOrderStatus[] = ['new', 'picking', 'picked', 'partially_delivered', 'delivered', 'closed', 'cancelled'];
const ALLOWED = new Set([
  'new>picking',
  'new>cancelled',
  'picking>picked',
  'picking>cancelled',
  'picked>delivered',
  'picked>cancelled',
  'partially_delivered>delivered',
  'partially_delivered>closed',
]);

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

  it('When a move is refused, Then the message lists the moves that are allowed, and says how partially_delivered is reached and why a shipped order is closed, not cancelled', () => {
    expect(forbiddenMoveMessage('picking', 'new')).to.equal('The order cannot move from picking to new; allowed: picked, cancelled.');
    expect(forbiddenMoveMessage('delivered', 'cancelled')).to.equal('The order is delivered; it cannot move to cancelled or to any other status.');
    expect(forbiddenMoveMessage('picked', 'partially_delivered')).to.equal(
      'The order cannot move from picked to partially_delivered; allowed: delivered, cancelled. An order becomes partially_delivered by a shipment (POST /api/sales-orders/{id}/shipments).',
    );
    expect(forbiddenMoveMessage('partially_delivered', 'cancelled')).to.equal(
      'The order cannot move from partially_delivered to cancelled; allowed: delivered, closed. Part of it has shipped: close it to give up the rest.',
    );
  });

  it('When the table is read, Then it names every status, and only open orders reserve stock', () => {
    expect(Object.keys(TRANSITIONS).sort()).to.deep.equal([...STATUSES].sort());
    expect(STATUSES.filter(isOpen)).to.deep.equal(['new', 'picking', 'picked', 'partially_delivered']);
  });

  it('When an order would ship, Then only a picking, picked or partially delivered order that is not held may; the refusal names the field that forbids it', () => {
    const order = (status: SalesOrderStatus, on_hold = false, hold_reason: string | null = null) => ({ id: 42, status, on_hold, hold_reason });
    expect(STATUSES.filter((status) => shippingRefusal(order(status)) === undefined)).to.deep.equal(['picking', 'picked', 'partially_delivered']);
    expect(shippingRefusal(order('new'))).to.deep.equal({ field: 'status', message: 'The order is new; only a picking, picked or partially_delivered order ships (move it to picking first).' });
    expect(shippingRefusal(order('closed', true, 'x'))).to.deep.equal({ field: 'status', message: 'The order is closed; only a picking, picked or partially_delivered order ships.' });
    expect(shippingRefusal(order('picked', true, 'Credit check'))).to.deep.equal({
      field: 'on_hold',
      message: 'The order is on hold (Credit check); release it first with POST /api/sales-orders/42/release.',
    });
  });

  it('When a held order would move, Then only cancelled is allowed; an order not held moves freely', () => {
    const held = { id: 7, status: 'picked' as const, on_hold: true, hold_reason: 'Address check' };
    expect(STATUSES.filter((to) => heldMoveRefusal(held, to) === undefined)).to.deep.equal(['cancelled']);
    expect(heldMoveRefusal(held, 'delivered')).to.equal('The order is on hold (Address check); release it first with POST /api/sales-orders/7/release.');
    expect(STATUSES.filter((to) => heldMoveRefusal({ ...held, on_hold: false, hold_reason: null }, to) !== undefined)).to.deep.equal([]);
  });

  it('When an order would be held, Then only an open order may', () => {
    expect(STATUSES.filter((status) => notHoldableMessage(status) === undefined)).to.deep.equal(['new', 'picking', 'picked', 'partially_delivered']);
    expect(notHoldableMessage('delivered')).to.equal('The order is delivered; only an open order (new, picking, picked or partially_delivered) can be held.');
  });

  it('When a shipment is made, Then the order is delivered once every line is complete, else partially delivered', () => {
    expect(leftToShip({ quantity: 3000, delivered_quantity: 1250 })).to.equal(1750);
    expect(statusAfterShipment([{ quantity: 3000, delivered_quantity: 3000 }, { quantity: 1000, delivered_quantity: 1000 }])).to.equal('delivered');
    expect(statusAfterShipment([{ quantity: 3000, delivered_quantity: 2999 }, { quantity: 1000, delivered_quantity: 1000 }])).to.equal('partially_delivered');
    expect(statusAfterShipment([{ quantity: 3000, delivered_quantity: 0 }])).to.equal('partially_delivered');
  });
});
