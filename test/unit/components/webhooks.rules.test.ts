/** webhooks.rules: which events a subscription wants, what an answer means, and when to try again. */
import { expect } from 'chai';
import { MAX_ATTEMPTS, mixesWildcard, nextDelayMs, outcomeOf, retryAfterMs, wants, withheldBy, withheldReason } from '../../../src/components/webhooks/webhooks.rules.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** The contract's schedule: the wait after the 1st, 2nd, … 9th failed attempt. */
const SCHEDULE = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR];
const NOW = Date.UTC(2026, 10, 21, 10, 0, 0);

describe('webhooks.rules', () => {
  describe('mixesWildcard', () => {
    it('When "*" stands beside an event name, Then the filter mixes; "*" alone, repeated, or names alone do not', () => {
      for (const filter of [['*', 'article.created'], ['stock.changed', '*'], ['*', '*', 'return.created']]) expect(mixesWildcard(filter), filter.join()).to.equal(true);
      for (const filter of [['*'], ['*', '*'], ['article.created'], ['article.created', 'stock.changed'], []]) expect(mixesWildcard(filter), filter.join()).to.equal(false);
    });
  });

  describe('wants', () => {
    it('When the filter is ["*"], Then every event of the catalogue and the ping are wanted', () => {
      for (const type of ['article.created', 'stock.changed', 'sales_order.status_changed', 'webhook.ping']) expect(wants(['*'], type), type).to.equal(true);
    });

    it('When the filter names events, Then exactly those are wanted', () => {
      const filter = ['article.created', 'stock.changed'];
      expect(wants(filter, 'article.created')).to.equal(true);
      expect(wants(filter, 'stock.changed')).to.equal(true);
      for (const type of ['article.updated', 'article', 'article.*', 'reception.created', '*']) expect(wants(filter, type), type).to.equal(false);
      expect(wants([], 'article.created')).to.equal(false);
    });
  });

  describe('outcomeOf', () => {
    const cases: Array<[number | undefined, string]> = [
      [200, 'delivered'], [204, 'delivered'], [299, 'delivered'],
      [199, 'retry'], [300, 'retry'], [302, 'retry'], [400, 'retry'], [404, 'retry'], [429, 'retry'], [500, 'retry'], [503, 'retry'], [undefined, 'retry'],
      [410, 'gone'],
    ];
    for (const [status, outcome] of cases) {
      it(`When the receiver answers ${status ?? 'nothing'}, Then the outcome is ${outcome}`, () => {
        expect(outcomeOf(status)).to.equal(outcome);
      });
    }
  });

  describe('retryAfterMs', () => {
    it('When Retry-After is a number of seconds, Then it is that many milliseconds', () => {
      expect(retryAfterMs('120', NOW)).to.equal(120_000);
      expect(retryAfterMs(' 7 ', NOW)).to.equal(7_000);
      expect(retryAfterMs('1', NOW)).to.equal(1_000);
    });

    it('When Retry-After is an HTTP date, Then it is the time until that date', () => {
      expect(retryAfterMs(new Date(NOW + 90_000).toUTCString(), NOW)).to.equal(90_000);
      expect(retryAfterMs('Sat, 21 Nov 2026 11:00:00 GMT', NOW)).to.equal(HOUR);
    });

    it('When Retry-After is in the past, zero, absent or garbage, Then there is none', () => {
      for (const header of [new Date(NOW - 60_000).toUTCString(), 'Sat, 21 Nov 2026 10:00:00 GMT', '0', undefined, '', '   ', 'soon', 'abc123', '-5', '1e3']) {
        expect(retryAfterMs(header, NOW), String(header)).to.equal(undefined);
      }
    });

    it('When Retry-After is more than 24 h away, Then it is capped at 24 h', () => {
      expect(retryAfterMs(String(24 * 3600), NOW)).to.equal(24 * HOUR);
      expect(retryAfterMs(String(24 * 3600 + 1), NOW)).to.equal(24 * HOUR);
      expect(retryAfterMs('999999999', NOW)).to.equal(24 * HOUR);
      expect(retryAfterMs(new Date(NOW + 3 * 24 * HOUR).toUTCString(), NOW)).to.equal(24 * HOUR);
    });
  });

  describe('nextDelayMs', () => {
    it('When the schedule is read, Then a delivery has 10 attempts: the first and 9 retries over about 22 h', () => {
      expect(MAX_ATTEMPTS).to.equal(10);
      const total = SCHEDULE.reduce((a, b) => a + b, 0);
      expect(total).to.be.within(22 * HOUR, 23 * HOUR);
    });

    SCHEDULE.forEach((base, i) => {
      const attempts = i + 1;
      it(`When ${attempts} attempt(s) failed, Then the next waits ${base / SECOND} s ±20 %`, () => {
        expect(nextDelayMs(attempts, 0)).to.equal(base * 0.8);
        expect(nextDelayMs(attempts, 0.5)).to.equal(base);
        const high = nextDelayMs(attempts, 0.999)!;
        expect(high).to.be.above(base * 1.19).and.at.most(base * 1.2);
        for (let r = 0; r < 1; r += 0.125) expect(nextDelayMs(attempts, r)).to.be.within(base * 0.8, base * 1.2);
      });
    });

    it('When the 10th attempt failed, Then there is no next attempt, whatever the jitter or Retry-After', () => {
      for (const random of [0, 0.5, 0.999]) {
        expect(nextDelayMs(10, random)).to.equal(undefined);
        expect(nextDelayMs(10, random, 60_000)).to.equal(undefined);
        expect(nextDelayMs(11, random)).to.equal(undefined);
      }
    });

    it('When Retry-After is longer than the scheduled wait, Then it wins; when shorter, the schedule does', () => {
      expect(nextDelayMs(1, 0.5, 60_000)).to.equal(60_000);
      expect(nextDelayMs(1, 0.5, 1_000)).to.equal(5_000);
      expect(nextDelayMs(3, 0.999, 24 * HOUR)).to.equal(24 * HOUR);
      expect(nextDelayMs(9, 0, HOUR)).to.equal(12 * HOUR * 0.8);
      expect(nextDelayMs(1, 0, undefined)).to.equal(4_000);
    });

    it('When the waits of all retries add up, Then the last attempt comes about a day after the first', () => {
      const sum = (random: number) => SCHEDULE.reduce((total, _, i) => total + nextDelayMs(i + 1, random)!, 0);
      expect(sum(0.5)).to.equal(SCHEDULE.reduce((a, b) => a + b, 0));
      expect(sum(0)).to.be.above(17 * HOUR);
      expect(sum(0.999)).to.be.below(28 * HOUR);
    });
  });
  describe('withheldBy: the modules a delivery needs', () => {
    const all = new Set(['api', 'webhooks', 'articles', 'stock']);
    const without = (module: string) => new Set([...all].filter((m) => m !== module));

    it('When every module is on, Then nothing withholds it; a ping (no content module) needs the subscriber\'s api and webhooks alone', () => {
      expect(withheldBy('stock.changed', 'stock', { id: 1, modules: all }, { id: 2, modules: all })).to.equal(undefined);
      expect(withheldBy('webhook.ping', undefined, { id: 1, modules: new Set(['api', 'webhooks']) }, { id: 1, modules: new Set(['api', 'webhooks']) })).to.equal(undefined);
    });

    it("When the subscriber lacks api, webhooks or the content module, or the client the content module, Then the first that is off is named with its company", () => {
      expect(withheldBy('stock.changed', 'stock', { id: 1, modules: without('api') }, { id: 2, modules: all })).to.deep.equal({ of: 'subscriber', companyId: 1, module: 'api' });
      expect(withheldBy('stock.changed', 'stock', { id: 1, modules: without('webhooks') }, { id: 2, modules: all })).to.deep.equal({ of: 'subscriber', companyId: 1, module: 'webhooks' });
      expect(withheldBy('stock.changed', 'stock', { id: 1, modules: without('stock') }, { id: 2, modules: all })).to.deep.equal({ of: 'subscriber', companyId: 1, module: 'stock' });
      expect(withheldBy('stock.changed', 'stock', { id: 1, modules: all }, { id: 2, modules: without('stock') })).to.deep.equal({ of: 'client', companyId: 2, module: 'stock' });
      expect(withheldBy('stock.changed', 'stock', { id: 1, modules: undefined }, { id: 2, modules: all })).to.deep.equal({ of: 'subscriber', companyId: 1, module: 'api' });
      expect(withheldBy('webhook.ping', undefined, { id: 1, modules: without('webhooks') }, { id: 1, modules: all })).to.deep.equal({ of: 'subscriber', companyId: 1, module: 'webhooks' });
    });

    it('When a type has no content module and is not the ping, Then it is withheld whatever the modules (the catalogue does not know it)', () => {
      expect(withheldBy('article.archived', undefined, { id: 1, modules: all }, { id: 2, modules: all })).to.deep.equal({ of: 'catalogue', type: 'article.archived' });
      expect(withheldReason({ of: 'catalogue', type: 'article.archived' })).to.equal('the event type article.archived is not in the catalogue, so no module lets anyone have it');
    });

    it('When it is withheld, Then the reason names the module, the company and whose it is', () => {
      expect(withheldReason({ of: 'client', companyId: 7, module: 'articles' })).to.equal('the articles module is off for company 7, the company the event is about');
      expect(withheldReason({ of: 'subscriber', companyId: 3, module: 'api' })).to.equal('the api module is off for company 3, the company that owns the subscription');
    });
  });
});
