import { expect } from 'chai';
import { messages, parseCount, parseDelta, quantitySource, takesAwayOrCounts } from '../../../src/components/stock-adjustments/stock-adjustments.rules.js';

describe('Adjustment quantities (stock-adjustments.rules.ts)', () => {
  it('When a delta is signed, Then it is kept as signed thousandths, from a number or a string with a point or comma', () => {
    expect(parseDelta(5)).to.deep.equal({ ok: true, thousandths: 5000 });
    expect(parseDelta(-1.5)).to.deep.equal({ ok: true, thousandths: -1500 });
    expect(parseDelta('-1,25')).to.deep.equal({ ok: true, thousandths: -1250 });
    expect(parseDelta(' -0.001 ')).to.deep.equal({ ok: true, thousandths: -1 });
  });

  it('When a delta is zero in any spelling, Then it is refused with what to send instead', () => {
    for (const zero of [0, -0, '0', '-0', '0,000', '00.0', '-0.0000']) expect(parseDelta(zero)).to.deep.equal({ ok: false, message: messages.zeroDelta });
  });

  it('When a delta breaks the quantity rules, Then the quantity message says which; its shape and range are told as a signed value', () => {
    expect(parseDelta('-1.2345')).to.deep.include({ ok: false, message: 'The quantity may have at most 3 decimals.' });
    expect(parseDelta(true)).to.deep.include({ ok: false, message: 'The quantity must be a number, or a string such as "1,5".' });
    for (const beyond of [-2_000_000_000, -1_000_000_001, 1_000_000_001, '-1000000000,001', '1000000001']) {
      expect(parseDelta(beyond), String(beyond)).to.deep.equal({ ok: false, message: 'The delta must be between -1000000000 and 1000000000.' });
    }
    expect(parseDelta(-1_000_000_000)).to.deep.equal({ ok: true, thousandths: -1_000_000_000_000 });
    expect(parseDelta('1000000000')).to.deep.equal({ ok: true, thousandths: 1_000_000_000_000 });
  });

  it('When a delta string has a sign the API does not read (a plus, a minus apart from its digits, two), or is not a decimal, Then the delta format message says how to sign it', () => {
    expect(messages.deltaFormat).to.include('a minus right before the digits');
    for (const bad of ['+5', '- 1', ' - 1 ', '-\t1', '--1', '+-1', '-+1', '-', '-,5', 'abc', '-abc', '1e3', Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(parseDelta(bad), String(bad)).to.deep.equal({ ok: false, message: messages.deltaFormat });
    }
  });

  it('When a count is 0 or more, up to what a balance holds, Then it is kept; below 0 or above it is refused', () => {
    expect(parseCount(0)).to.deep.equal({ ok: true, thousandths: 0 });
    expect(parseCount('0,0')).to.deep.equal({ ok: true, thousandths: 0 });
    expect(parseCount('118')).to.deep.equal({ ok: true, thousandths: 118000 });
    expect(parseCount(-1)).to.deep.equal({ ok: false, message: messages.negativeCount });
    expect(parseCount('-0,5')).to.deep.equal({ ok: false, message: messages.negativeCount });
    // "-0" is 0, as the number -0 is.
    for (const zero of [-0, '-0', ' -0,000 ', '-0.0000']) expect(parseCount(zero), String(zero)).to.deep.equal({ ok: true, thousandths: 0 });
    for (const bad of ['+5', '- 1', '--1', '- 0']) {
      expect(parseCount(bad), bad).to.deep.include({ ok: false, message: 'The quantity must be a number with at most 3 decimals, such as 12, 1.5 or "1,5".' });
    }
    // A count sets a whole balance: up to what one holds (10^12), not only a line's 10^9.
    expect(parseCount('1000000000,5')).to.deep.equal({ ok: true, thousandths: 1_000_000_000_500 });
    expect(parseCount(1e12)).to.deep.equal({ ok: true, thousandths: 1e15 });
    expect(parseCount('1000000000000.001')).to.deep.include({ ok: false, message: 'The quantity must not be greater than 1000000000000.' });
    expect(parseCount(1e13)).to.deep.include({ ok: false, message: 'The quantity must not be greater than 1000000000000.' });
  });

  it('When a line gives a delta, a count, both or neither, Then its quantity is read from the field it gave, or fails on the field named', () => {
    expect(quantitySource({ delta_um3pl: -2 })).to.include({ field: 'delta_um3pl', value: -2 });
    expect(quantitySource({ counted_um3pl: 3 })).to.include({ field: 'counted_um3pl', value: 3 });
    const both = quantitySource({ delta_um3pl: 1, counted_um3pl: 1 });
    expect([both.field, both.parse(undefined)]).to.deep.equal(['counted_um3pl', { ok: false, message: messages.both }]);
    const neither = quantitySource({});
    expect([neither.field, neither.parse(undefined)]).to.deep.equal(['delta_um3pl', { ok: false, message: messages.neither }]);
  });

  it('When a line takes stock away or counts it, Then a deactivated article may have it; a line that adds may not', () => {
    expect(takesAwayOrCounts({ delta_um3pl: -1 })).to.equal(true);
    expect(takesAwayOrCounts({ counted_um3pl: 9 })).to.equal(true);
    expect(takesAwayOrCounts({ delta_um3pl: 1 })).to.equal(false);
    expect(takesAwayOrCounts({ delta_um3pl: 0 })).to.equal(false);
    expect(takesAwayOrCounts({ delta_um3pl: -1, counted_um3pl: 1 })).to.equal(false);
  });
});
