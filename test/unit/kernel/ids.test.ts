import { expect } from 'chai';
import { eventId, monotonicUlids } from '../../../src/kernel/ids.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 2026-11-21T10:00:00Z in milliseconds. */
const BASE_MS = Date.UTC(2026, 10, 21, 10, 0, 0);

/** The milliseconds in the time part (first 10 characters) of a ULID. */
function timeOf(id: string): number {
  return [...id.slice(0, 10)].reduce((ms, c) => ms * 32 + CROCKFORD.indexOf(c), 0);
}

/** The random part of a ULID (its last 16 characters) as a number. */
function randomOf(id: string): bigint {
  return [...id.slice(10)].reduce((n, c) => n * 32n + BigInt(CROCKFORD.indexOf(c)), 0n);
}

function expectStrictlyIncreasing(ids: readonly string[]): void {
  for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `id ${i}: ${ids[i - 1]} then ${ids[i]}`).to.equal(true);
}

describe('monotonicUlids', () => {
  it('When many ids are minted in one millisecond, Then each is the one before plus one in its random part, all carrying that millisecond', () => {
    const next = monotonicUlids();
    const ids = Array.from({ length: 10_000 }, () => next(BASE_MS));
    expectStrictlyIncreasing(ids);
    expect([...ids].sort()).to.deep.equal(ids);
    for (const id of ids) expect(id).to.match(ULID);
    ids.forEach((id) => expect(timeOf(id)).to.equal(BASE_MS));
    for (let i = 1; i < ids.length; i++) expect(randomOf(ids[i]!)).to.equal(randomOf(ids[i - 1]!) + 1n);
  });

  it('When a later millisecond comes, Then its id carries that time and starts from fresh random digits, above every id before', () => {
    const next = monotonicUlids();
    const first = Array.from({ length: 100 }, () => next(BASE_MS));
    const later = next(BASE_MS + 1);
    expect(timeOf(later)).to.equal(BASE_MS + 1);
    expect(randomOf(later), 'not the last one plus one').not.to.equal(randomOf(first[first.length - 1]!) + 1n);
    expectStrictlyIncreasing([...first, later]);
  });

  it('When ids are minted at increasing times, Then they sort in time order and carry that time', () => {
    const next = monotonicUlids();
    const ids = Array.from({ length: 1000 }, (_, i) => next(BASE_MS + i));
    expectStrictlyIncreasing(ids);
    ids.forEach((id, i) => expect(timeOf(id)).to.equal(BASE_MS + i));
  });

  it('When the clock reads earlier than the last id, Then the next id keeps the last id\'s time and still increases', () => {
    const next = monotonicUlids();
    const before = next(BASE_MS + 5);
    const after = next(BASE_MS);
    expect(timeOf(after)).to.equal(BASE_MS + 5);
    expect(randomOf(after)).to.equal(randomOf(before) + 1n);
  });

  it('When the random part of a millisecond has no room left, Then the next id takes the next millisecond', () => {
    const next = monotonicUlids(() => Array.from({ length: 16 }, () => 31));
    const last = next(BASE_MS);
    expect(last.slice(10)).to.equal('Z'.repeat(16));
    const following = next(BASE_MS);
    expect(timeOf(following)).to.equal(BASE_MS + 1);
    expect(following > last).to.equal(true);
  });
});

describe('eventId', () => {
  it('When the process mints event ids one after another, Then each is an evt_ ULID greater than the one before', () => {
    const ids = Array.from({ length: 10_000 }, () => eventId());
    for (const id of ids) expect(id).to.match(EVENT_ID);
    expectStrictlyIncreasing(ids);
    expect(Math.abs(timeOf(ids[0]!.slice(4)) - Date.now())).to.be.below(60_000);
  });
});
