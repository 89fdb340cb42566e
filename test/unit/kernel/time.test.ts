import { expect } from 'chai';
import { epochMs, fromApiTime, nowDb, toApiTime } from '../../../src/kernel/time.js';

const STORED = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;
/** 2026-11-21T10:00:00Z in milliseconds. */
const BASE_MS = Date.UTC(2026, 10, 21, 10, 0, 0);

describe('nowDb', () => {
  it('When the clock reads a fractional millisecond, Then the stored time keeps it to the microsecond', () => {
    // 123.125 ms is exact in binary, so the expected microseconds are exact too.
    expect(nowDb(() => BASE_MS + 123.125)).to.equal('2026-11-21 10:00:00.123125');
    expect(nowDb(() => BASE_MS)).to.equal('2026-11-21 10:00:00.000000');
    expect(nowDb(() => BASE_MS + 999.875)).to.equal('2026-11-21 10:00:00.999875');
  });

  it('When the clock advances, Then the stored times sort in the same order, across second and day boundaries', () => {
    const readings = [
      Date.UTC(2026, 10, 21, 23, 59, 59) + 999.75,
      Date.UTC(2026, 10, 21, 23, 59, 59) + 999.875,
      Date.UTC(2026, 10, 22, 0, 0, 0),
      Date.UTC(2026, 10, 22, 0, 0, 0) + 0.125,
      Date.UTC(2026, 10, 22, 0, 0, 1) + 0.25,
    ];
    const stored = readings.map((ms) => nowDb(() => ms));
    expect(stored).to.deep.equal([
      '2026-11-21 23:59:59.999750',
      '2026-11-21 23:59:59.999875',
      '2026-11-22 00:00:00.000000',
      '2026-11-22 00:00:00.000125',
      '2026-11-22 00:00:01.000250',
    ]);
    expect([...stored].sort()).to.deep.equal(stored);
    expect(new Set(stored).size).to.equal(stored.length);
  });

  it('When no clock is given, Then it uses the real one, in the stored format, near Date.now()', () => {
    const before = Date.now();
    const first = nowDb();
    const second = nowDb();
    expect(first).to.match(STORED);
    expect(second >= first).to.equal(true);
    expect(Math.abs(epochMs(first) - before)).to.be.below(5_000);
  });
});

describe('toApiTime', () => {
  it('When given a stored string, Then it answers ISO 8601 UTC with 6 fraction digits', () => {
    expect(toApiTime('2026-11-21 10:00:00.123456')).to.equal('2026-11-21T10:00:00.123456Z');
    expect(toApiTime('2026-11-21 10:00:00')).to.equal('2026-11-21T10:00:00.000000Z');
    expect(toApiTime('2026-11-21 10:00:00.5')).to.equal('2026-11-21T10:00:00.500000Z');
    expect(toApiTime('2026-11-21T10:00:00.000001')).to.equal('2026-11-21T10:00:00.000001Z');
  });

  it('When given a Date, Then it answers its UTC time with the milliseconds padded to 6 digits', () => {
    expect(toApiTime(new Date(BASE_MS + 123))).to.equal('2026-11-21T10:00:00.123000Z');
    expect(toApiTime(new Date(BASE_MS))).to.equal('2026-11-21T10:00:00.000000Z');
  });

  it('When the input is not a stored time, Then it throws', () => {
    for (const value of ['yesterday', '2026-11-21', '2026-11-21 10:00', '2026-11-21 10:00:00.1234567', '2026-11-21T10:00:00Z']) {
      expect(() => toApiTime(value), value).to.throw(/Not a stored time/);
    }
    expect(() => toApiTime(new Date(Number.NaN))).to.throw(RangeError);
  });
});

describe('fromApiTime', () => {
  it('When the time is in UTC, Then it is stored as it is, with 6 fraction digits', () => {
    expect(fromApiTime('2026-11-21T10:00:00.123456Z')).to.equal('2026-11-21 10:00:00.123456');
    expect(fromApiTime('2026-11-21T10:00:00Z')).to.equal('2026-11-21 10:00:00.000000');
    expect(fromApiTime('2026-11-21T10:00:00.5Z')).to.equal('2026-11-21 10:00:00.500000');
  });

  it('When the time has an offset, Then it is converted to UTC and keeps its microseconds', () => {
    expect(fromApiTime('2026-11-21T12:00:00.123456+02:00')).to.equal('2026-11-21 10:00:00.123456');
    expect(fromApiTime('2026-11-21T01:30:00.000007+02:00')).to.equal('2026-11-20 23:30:00.000007');
    expect(fromApiTime('2026-11-21T08:30:00-01:30')).to.equal('2026-11-21 10:00:00.000000');
    expect(fromApiTime('2026-12-31T23:00:00.999999-02:00')).to.equal('2027-01-01 01:00:00.999999');
  });

  it('When the offset is written without a colon, or as -00:00, Then it is still converted', () => {
    expect(fromApiTime('2026-11-21T12:00:00.25+0200')).to.equal('2026-11-21 10:00:00.250000');
    expect(fromApiTime('2026-11-21T10:00:00-00:00')).to.equal('2026-11-21 10:00:00.000000');
  });

  it('When the offset gives hours only (+02), as the date-time format the validator checks allows, Then it is converted to UTC', () => {
    // ajv-formats' "date-time" (what express-openapi-validator checks updated_since against) accepts "+02".
    expect(fromApiTime('2026-11-21T12:00:00.000001+02')).to.equal('2026-11-21 10:00:00.000001');
  });

  it('When the fraction is near the end of the second, Then the second is not rounded up', () => {
    expect(fromApiTime('2026-11-21T10:00:00.999999Z')).to.equal('2026-11-21 10:00:00.999999');
    expect(fromApiTime('2026-11-21T10:00:00.9999999Z')).to.equal('2026-11-21 10:00:00.999999');
  });

  it('When a time goes to the API and back, Then it is unchanged', () => {
    const stored = '2026-11-21 10:00:00.654321';
    expect(fromApiTime(toApiTime(stored))).to.equal(stored);
  });

  it('When the input is not a date-time, Then it throws', () => {
    for (const value of ['not a date', '', '2026-13-45T99:00:00Z']) {
      expect(() => fromApiTime(value), value).to.throw(/Not a date-time/);
    }
  });

  it('When the year is below 100, Then it is that year (Date.UTC would read 0099 as 1999), its leap days included', () => {
    expect(fromApiTime('0099-01-01T00:00:00Z')).to.equal('0099-01-01 00:00:00.000000');
    expect(fromApiTime('0000-02-29T12:00:00+01:00')).to.equal('0000-02-29 11:00:00.000000');
    expect(() => fromApiTime('0099-02-29T00:00:00Z')).to.throw(/Not a date-time/);
  });

  it('When the offset carries the time out of the years 0000 to 9999 in UTC, Then it throws a RangeError (its stored text would sort before every other)', () => {
    expect(fromApiTime('9999-12-31T23:59:59Z')).to.equal('9999-12-31 23:59:59.000000');
    for (const value of ['9999-12-31T23:59:59-01:00', '0000-01-01T00:30:00+01:00']) {
      expect(() => fromApiTime(value), value).to.throw(RangeError, /years 0000 to 9999/);
    }
  });
});

describe('epochMs', () => {
  it('When given a stored time, Then it answers its epoch milliseconds (microseconds dropped)', () => {
    expect(epochMs('2026-11-21 10:00:00.123456')).to.equal(BASE_MS + 123);
  });
});
