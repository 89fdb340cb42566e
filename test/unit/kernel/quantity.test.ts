import { expect } from 'chai';
import { MAX_QUANTITY, isWholeQuantity, parseQuantity, toQuantity, wholeNumberViolation } from '../../../src/kernel/quantity.js';

const EMPTY = 'The quantity must not be empty.';
const FORMAT = 'The quantity must be a number with at most 3 decimals, such as 12, 1.5 or "1,5".';
const DECIMALS = 'The quantity may have at most 3 decimals.';
const POSITIVE = 'The quantity must be greater than 0.';
const MAX = 'The quantity must not be greater than 1000000000.';
const TYPE = 'The quantity must be a number, or a string such as "1,5".';

function label(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeof value === 'number' ? String(Object.is(value, -0) ? '-0' : value) : String(value);
}

function expectThousandths(cases: Array<[unknown, number]>): void {
  for (const [value, thousandths] of cases) {
    expect(parseQuantity(value), label(value)).to.deep.equal({ ok: true, thousandths });
  }
}

function expectMessage(message: string, values: unknown[]): void {
  for (const value of values) {
    expect(parseQuantity(value), label(value)).to.deep.include({ ok: false, message });
  }
}

describe('parseQuantity', () => {
  it('When given a string with a decimal comma or point, Then it answers exact thousandths', () => {
    expectThousandths([
      ['1,5', 1500],
      ['2.25', 2250],
      ['007', 7000],
      [' 3 ', 3000],
      ['0,001', 1],
      ['0.001', 1],
      ['000.500', 500],
      ['1,234', 1234],
      ['12', 12000],
      ['4,35', 4350],
      ['1.005', 1005],
      ['1234567.891', 1234567891],
      ['\t 9,999 \n', 9999],
      ['1,50', 1500],
      ['1.500', 1500],
    ]);
  });

  it('When given a JSON number, Then it answers the thousandths of its shortest decimal form, never a float product', () => {
    expectThousandths([
      [1.5, 1500],
      [2.25, 2250],
      [1, 1000],
      [0.001, 1],
      [1.005, 1005], // 1.005 * 1000 is 1004.9999999999999
      [4.35, 4350], // 4.35 * 1000 is 4349.999999999999
      [1234567.891, 1234567891],
      [1.5, 1500],
      [0.1, 100],
      [8.675, 8675],
      [1e3, 1_000_000],
    ]);
  });

  it('When the string is empty or only whitespace, Then it says the quantity must not be empty', () => {
    expectMessage(EMPTY, ['', '   ', '\t\n', '\u00a0']);
  });

  it('When the string is not a plain decimal, Then it says what a quantity looks like', () => {
    expectMessage(FORMAT, [
      '1,2,3', '1.2.3', '1,2.3', 'abc', '1.5e3', '1e3', '+1', '.5', ',5', '5.', '5,', '1 000', '0x10', '0b1', 'Infinity',
      '-Infinity', 'NaN', '-', '--1', '- 1', '1-', '1,5 kg', '١٢', '1_000', '½', '1;5', '-.5', '-1,2,3',
    ]);
  });

  it('When the number is NaN or infinite, Then it says what a quantity looks like', () => {
    expectMessage(FORMAT, [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
  });

  it('When there are more than 3 significant decimals, Then it says at most 3 decimals', () => {
    expectMessage(DECIMALS, [
      '1,2345', '0,0001', '1.00010', '1.' + '0'.repeat(200) + '1', '-1,2345',
      0.1 + 0.2, 1.2345, 0.0001, 1e-7, 5e-324, -1e-7, 1000000000.0001,
    ]);
  });

  it('When a string has trailing zeros beyond 3 decimals, Then they are no precision and it is read as the JSON number is', () => {
    expectThousandths([
      ['1.5000', 1500],
      ['12.50000000', 12500],
      ['1,2340', 1234],
      ['1.' + '0'.repeat(200), 1000],
      ['1000000000.000000', 1_000_000_000_000],
    ]);
    expectMessage(POSITIVE, ['0.0000', '-1.5000']);
    expectMessage(MAX, ['1000000000.0010']);
  });

  it('When the JSON number has trailing zeros, Then they are gone after JSON parsing and it is accepted', () => {
    expect(parseQuantity(JSON.parse('1.5000'))).to.deep.equal({ ok: true, thousandths: 1500 });
    expect(parseQuantity(JSON.parse('{"q": 2.250000}').q)).to.deep.equal({ ok: true, thousandths: 2250 });
  });

  it('When the quantity is zero or negative, Then it says it must be greater than 0', () => {
    expectMessage(POSITIVE, [
      '0', '0,000', '000', '-1', '-0', '-0,5', '-2.5', '-0.000', '-' + '9'.repeat(40), ' -3 ',
      0, -0, -1, -2.5, -0.001, -1e21, -Number.MAX_VALUE, Number.MIN_SAFE_INTEGER,
    ]);
  });

  it('When the quantity is above the maximum, Then it says the maximum', () => {
    expectMessage(MAX, [
      '1000000000.001', '1000000000,001', '1000000001', '9'.repeat(40), '9'.repeat(40) + ',5', '10000000000',
      1000000000.001, 1000000001, 1e21, 1.5e300, Number.MAX_VALUE, Number.MAX_SAFE_INTEGER, 2 ** 53,
    ]);
  });

  it('When the quantity is exactly the maximum or just below it, Then it is accepted', () => {
    expectThousandths([
      [MAX_QUANTITY, 1_000_000_000_000],
      ['1000000000', 1_000_000_000_000],
      ['1000000000,000', 1_000_000_000_000],
      ['0000000001000000000.000', 1_000_000_000_000],
      [999999999.999, 999_999_999_999],
      ['999999999,999', 999_999_999_999],
    ]);
  });

  it('When a very long digit string has leading zeros, Then only its value counts', () => {
    expectThousandths([
      ['0'.repeat(500) + '1', 1000],
      ['0'.repeat(500) + '1,' + '5', 1500],
      ['0'.repeat(500) + '0,001', 1],
    ]);
  });

  it('When the value is neither a number nor a string, Then it says which types are allowed', () => {
    expectMessage(TYPE, [true, false, null, undefined, {}, [], ['1'], { value: 1 }, 1n, Symbol('q'), () => 1]);
  });
});

describe('toQuantity', () => {
  it('When given thousandths, Then it answers the JSON number with exactly those decimals', () => {
    expect(toQuantity(1500)).to.equal(1.5);
    expect(toQuantity(1)).to.equal(0.001);
    expect(toQuantity(1234567891)).to.equal(1234567.891);
    expect(toQuantity(1000)).to.equal(1);
    expect(JSON.stringify({ q: toQuantity(1500) })).to.equal('{"q":1.5}');
    expect(JSON.stringify([toQuantity(1), toQuantity(1234567891), toQuantity(4350), toQuantity(1005)])).to.equal('[0.001,1234567.891,4.35,1.005]');
    expect(JSON.stringify(toQuantity(MAX_QUANTITY * 1000))).to.equal('1000000000');
    expect(JSON.stringify(toQuantity(999_999_999_999))).to.equal('999999999.999');
  });

  it('When given something that is not integer thousandths, Then it throws', () => {
    for (const value of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => toQuantity(value), String(value)).to.throw('Not a stored quantity');
    }
  });

  it('When thousandths are shown and parsed back, as a number or its string, Then they come back exactly', () => {
    const samples: number[] = [];
    for (let t = 1; t <= 20_000; t += 7) samples.push(t);
    for (let t = 999_999_000_000; t <= MAX_QUANTITY * 1000; t += 99_991) samples.push(t);
    samples.push(123_456_789_012, 999_999_999_999, 1_000_000_000_000, 987_654_321_001, 100_000_000_001, 1_000_001, 10_000_000_010);
    for (const t of samples) {
      const shown = toQuantity(t);
      expect(parseQuantity(shown), `${t} as number`).to.deep.equal({ ok: true, thousandths: t });
      expect(parseQuantity(String(shown)), `${t} as string`).to.deep.equal({ ok: true, thousandths: t });
      expect(parseQuantity(String(shown).replace('.', ',')), `${t} with a comma`).to.deep.equal({ ok: true, thousandths: t });
      expect(parseQuantity(JSON.parse(JSON.stringify(shown))), `${t} through JSON`).to.deep.equal({ ok: true, thousandths: t });
    }
  });
});

describe('isWholeQuantity', () => {
  it('When the thousandths are a multiple of 1000, Then the quantity is whole', () => {
    expect(isWholeQuantity(1000)).to.equal(true);
    expect(isWholeQuantity(7000)).to.equal(true);
    expect(isWholeQuantity(MAX_QUANTITY * 1000)).to.equal(true);
    expect(isWholeQuantity(1500)).to.equal(false);
    expect(isWholeQuantity(1)).to.equal(false);
    expect(isWholeQuantity(1001)).to.equal(false);
    expect(isWholeQuantity(999_999_999_999)).to.equal(false);
  });
});

describe('wholeNumberViolation', () => {
  const rule = { unit: 'BUC', unitWholeOnly: false, articleCode: 'ART-1', articleWholeOnly: false };
  const UNIT = 'The quantity must be a whole number: unit BUC is counted in whole units.';
  const ARTICLE = 'The quantity must be a whole number: article ART-1 takes whole quantities only.';

  it('When the quantity is whole, Then nothing is violated, whatever the flags', () => {
    for (const unitWholeOnly of [false, true]) {
      for (const articleWholeOnly of [false, true]) {
        expect(wholeNumberViolation(3000, { ...rule, unitWholeOnly, articleWholeOnly })).to.equal(undefined);
      }
    }
  });

  it('When the quantity is fractional and neither flag is set, Then nothing is violated', () => {
    expect(wholeNumberViolation(1500, rule)).to.equal(undefined);
    expect(wholeNumberViolation(1, rule)).to.equal(undefined);
  });

  it('When the unit is whole-only, Then it names the unit, even when the article is whole-only too', () => {
    expect(wholeNumberViolation(1500, { ...rule, unitWholeOnly: true })).to.equal(UNIT);
    expect(wholeNumberViolation(1, { ...rule, unitWholeOnly: true, articleWholeOnly: true })).to.equal(UNIT);
  });

  it('When only the article is whole-only, Then it names the article', () => {
    expect(wholeNumberViolation(2250, { ...rule, articleWholeOnly: true })).to.equal(ARTICLE);
    expect(wholeNumberViolation(999_999_999_999, { ...rule, articleWholeOnly: true })).to.equal(ARTICLE);
  });

  it('When a parsed fractional quantity meets a whole-only unit, Then the two together give the unit message', () => {
    const parsed = parseQuantity('1,5');
    expect(parsed.ok).to.equal(true);
    if (parsed.ok) expect(wholeNumberViolation(parsed.thousandths, { ...rule, unit: 'KG', unitWholeOnly: true })).to.equal('The quantity must be a whole number: unit KG is counted in whole units.');
  });
});
