/** FEFO allocation (src/components/stock/stock.fefo.ts): pure, no database. */
import { expect } from 'chai';
import { allocate, fefoOrder, shipmentTakes, type AllocationRow } from '../../../src/components/stock/stock.fefo.js';

const TODAY = '2026-11-27';
const row = (id: number, lot: string, expiryDate: string, quantity: number): AllocationRow => ({ id, lot, expiryDate, quantity });
const asObject = (map: Map<number, number>) => Object.fromEntries(map);

describe('stock.fefo', () => {
  it('When rows have expiry dates, lots and ids, Then FEFO orders them by expiry (none last), then lot, then id', () => {
    const rows = [row(1, 'B', '', 5), row(2, 'B', '2027-01-01', 5), row(3, 'A', '2027-01-01', 5), row(4, 'C', '2026-12-01', 5), row(5, 'A', '', 5)];
    expect(fefoOrder(rows).map((r) => r.id)).to.deep.equal([4, 3, 2, 5, 1]);
  });

  it('When an order of 15 meets lots L1 (10, earliest) and L2 (10), Then L1 is reserved 10 and L2 5 (the contract example)', () => {
    const result = allocate([row(1, 'L2', '2027-03-01', 10000), row(2, 'L1', '2027-01-01', 10000)], [{ lot: '', quantity: 15000 }], TODAY);
    expect(asObject(result.reserved)).to.deep.equal({ 2: 10000, 1: 5000 });
    expect(result.unallocated).to.equal(0);
  });

  it('When a lot has expired or holds nothing, Then it is never allocated and what no row can hold stays unallocated', () => {
    const result = allocate([row(1, 'OLD', '2026-11-26', 50000), row(2, 'EMPTY', '2027-01-01', 0), row(3, 'NEW', '2026-11-27', 4000)], [{ lot: '', quantity: 10000 }], TODAY);
    expect(asObject(result.reserved)).to.deep.equal({ 3: 4000 });
    expect(result.unallocated).to.equal(6000);
  });

  it('When a line pins a later lot, Then the pin is served from its lot first and the rest goes earliest expiry first around it', () => {
    const rows = [row(1, 'L1', '2027-01-01', 10000), row(2, 'L2', '2027-02-01', 10000)];
    const result = allocate(rows, [{ lot: 'L2', quantity: 8000 }, { lot: '', quantity: 12000 }], TODAY);
    expect(asObject(result.reserved)).to.deep.equal({ 2: 10000, 1: 10000 });
    expect(asObject(result.pinned)).to.deep.equal({ 2: 8000 });
    expect(result.unallocated).to.equal(0);
  });

  it('When a pinned lot holds less than its pin, Then the rest of the pin is unallocated, never taken from another lot', () => {
    const result = allocate([row(1, 'L1', '2027-01-01', 10000), row(2, 'L2', '2027-02-01', 3000)], [{ lot: 'L2', quantity: 5000 }], TODAY);
    expect(asObject(result.reserved)).to.deep.equal({ 2: 3000 });
    expect(result.unallocated).to.equal(2000);
  });

  it('When a line without a pin ships, Then it takes the earliest lots first but not what pinned lines hold', () => {
    const rows = [row(1, 'L1', '2027-01-01', 10000), row(2, 'L2', '2027-02-01', 10000), row(3, 'L0', '2026-01-01', 99000)];
    const plan = shipmentTakes(rows, [{ lot: 'L1', quantity: 6000 }, { lot: '', quantity: 9000 }], { lot: '', quantity: 9000 }, TODAY);
    expect('takes' in plan && plan.takes.map((t) => [t.row.id, t.quantity])).to.deep.equal([
      [1, 4000],
      [2, 5000],
    ]);
  });

  it('When a pinned line ships, Then it takes its lot only; more than its lot holds is short by the difference', () => {
    const rows = [row(1, 'L1', '2027-01-01', 10000), row(2, 'L2', '2027-02-01', 3000)];
    const ok = shipmentTakes(rows, [{ lot: 'L2', quantity: 3000 }], { lot: 'L2', quantity: 3000 }, TODAY);
    expect('takes' in ok && ok.takes.map((t) => [t.row.id, t.quantity])).to.deep.equal([[2, 3000]]);
    expect(shipmentTakes(rows, [{ lot: 'L2', quantity: 5000 }], { lot: 'L2', quantity: 5000 }, TODAY)).to.deep.equal({ short: 2000, available: 3000 });
  });
});
