/**
 * One subscription's slow endpoint does not hold up the others: the worker sends at most
 * SENDS_PER_SUBSCRIPTION deliveries of one subscription at once (SENDS_PER_COMPANY of one company's
 * subscriptions together, so that a tenant's many slow subscriptions leave the others sends too), keeps its other sends going for
 * everyone else (a slot claims again as soon as its send ends, not when the slowest of a batch
 * does), and its rounds go on fanning out new events while the slow sends wait.
 */
import { expect } from 'chai';
import type { SendResult } from '../../src/components/webhooks/webhooks.sender.js';
import { PARALLEL_SENDS, SENDS_PER_COMPANY, SENDS_PER_SUBSCRIPTION } from '../../src/components/webhooks/webhooks.worker.js';
import { createWorld } from '../helpers/factories.js';
import { until } from '../helpers/net.js';
import { createArticle, deliveries, isolatedApp, subscribe, testWorker, type Clock, type Isolated } from './support.js';

describe('Webhook deliveries next to a slow endpoint', () => {
  let h: Isolated;

  before(async () => {
    h = await isolatedApp();
  });

  after(async () => {
    await h?.close();
  });

  it(`When one endpoint holds every request open, Then at most ${SENDS_PER_SUBSCRIPTION} of its deliveries are under way, another subscription gets every event at once, later events included, and the held ones are recorded when they end`, async () => {
    const world = await createWorld(h.app, h.db);
    const slow = await subscribe(world, 'http://127.0.0.1:9/slow', ['article.created']);
    const fast = await subscribe(world, 'http://127.0.0.1:9/fast', ['article.created']);
    const held: Array<() => void> = [];
    let slowUnderWay = 0;
    let mostSlowUnderWay = 0;
    const worker = testWorker(h.db, Date.now as Clock, {
      pollMs: 20,
      send: async (url): Promise<SendResult> => {
        if (!url.endsWith('/slow')) return { status: 204 };
        slowUnderWay++;
        mostSlowUnderWay = Math.max(mostSlowUnderWay, slowUnderWay);
        await new Promise<void>((resolve) => held.push(resolve));
        slowUnderWay--;
        return { status: 204 };
      },
    });
    const delivered = async (webhookId: number): Promise<number> => (await deliveries(world, webhookId)).filter((d) => d.status === 'delivered').length;

    for (let i = 0; i < 3 * PARALLEL_SENDS; i++) await createArticle(world);
    worker.start();
    try {
      await until(async () => (await delivered(fast.id)) === 3 * PARALLEL_SENDS, 20_000, 'every event delivered to the fast subscription');
      // A round after the fast deliveries fans out an event written now, while the slow sends still wait.
      await createArticle(world);
      await until(async () => (await delivered(fast.id)) === 3 * PARALLEL_SENDS + 1, 20_000, 'a later event delivered to the fast subscription');
      expect(held, 'the slow sends under way').to.have.length(SENDS_PER_SUBSCRIPTION);
      expect(await delivered(slow.id)).to.equal(0);

      for (const release of held.splice(0)) release();
      await until(async () => (await delivered(slow.id)) >= SENDS_PER_SUBSCRIPTION, 20_000, 'the held deliveries recorded');
      // The rest of the slow subscription's deliveries go out as its sends end, never more than the bound at once.
      const releasing = setInterval(() => held.splice(0).forEach((release) => release()), 10);
      try {
        await until(async () => (await delivered(slow.id)) === 3 * PARALLEL_SENDS + 1, 20_000, 'every event delivered to the slow subscription');
      } finally {
        clearInterval(releasing);
      }
    } finally {
      for (const release of held.splice(0)) release();
      await worker.stop();
    }
    expect(mostSlowUnderWay).to.equal(SENDS_PER_SUBSCRIPTION);
  });

  it(`When one company's many subscriptions all hold their requests open, Then at most ${SENDS_PER_COMPANY} of its sends are under way and another company gets every event at once`, async () => {
    const holder = await createWorld(h.app, h.db);
    const other = await createWorld(h.app, h.db);
    const slow = [];
    for (let i = 0; i < 4; i++) slow.push(await subscribe(holder, `http://127.0.0.1:9/slow-${i}`, ['article.created']));
    const fast = await subscribe(other, 'http://127.0.0.1:9/fast', ['article.created']);
    const held: Array<() => void> = [];
    let mostSlowUnderWay = 0;
    const worker = testWorker(h.db, Date.now as Clock, {
      pollMs: 20,
      send: async (url): Promise<SendResult> => {
        if (url.endsWith('/fast')) return { status: 204 };
        await new Promise<void>((resolve) => {
          held.push(resolve);
          mostSlowUnderWay = Math.max(mostSlowUnderWay, held.length);
        });
        return { status: 204 };
      },
    });
    for (let i = 0; i < 3; i++) await createArticle(holder);
    worker.start();
    try {
      await until(async () => held.length === SENDS_PER_COMPANY, 20_000, 'the holder company at its bound');
      for (let i = 0; i < PARALLEL_SENDS; i++) await createArticle(other);
      await until(async () => (await deliveries(other, fast.id)).filter((d) => d.status === 'delivered').length === PARALLEL_SENDS, 20_000, 'the other company served');
      expect(held, 'the holder keeps its bound, no more').to.have.length(SENDS_PER_COMPANY);
    } finally {
      const releasing = setInterval(() => held.splice(0).forEach((release) => release()), 10);
      await worker.stop();
      clearInterval(releasing);
      for (const release of held.splice(0)) release();
    }
    expect(mostSlowUnderWay).to.equal(SENDS_PER_COMPANY);
  });

  it(`When one company's backlog keeps it at its bound of ${SENDS_PER_COMPANY} sends, Then the worker does not search past that backlog again for each send that ends`, async () => {
    const world = await createWorld(h.app, h.db);
    for (let i = 0; i < 10; i++) await subscribe(world, `http://127.0.0.1:9/backlog-${i}`, ['article.created']);
    for (let i = 0; i < 40; i++) await createArticle(world);
    // A claim that passes over subscriptions at a bound names them in NOT IN; each such search reads
    // the backlog of those it passes over.
    let passingOver = 0;
    const counting = (query: { sql: string }): void => {
      if (/^select/i.test(query.sql) && /webhook_deliveries/.test(query.sql) && /not in/i.test(query.sql)) passingOver++;
    };
    h.db.on('query', counting);
    const worker = testWorker(h.db, Date.now as Clock, {
      pollMs: 1000,
      send: async (): Promise<SendResult> => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return { status: 204 };
      },
    });
    worker.start();
    let sent = 0;
    try {
      await until(async () => {
        const rows = await h.db('webhook_deliveries as d').join('webhooks as w', 'w.id', 'd.webhook_id').where('w.company_id', world.client.id).where('d.status', 'delivered').count({ n: '*' });
        sent = Number(rows[0]!.n);
        return sent === 400;
      }, 60_000, 'the backlog of 400 delivered');
    } finally {
      await worker.stop();
      h.db.off('query', counting);
    }
    // Once per send before (400); now at most once a poll while the backlog lasts, and once per round.
    expect(passingOver, `searches passing over the bounded company for ${sent} sends`).to.be.below(40);
  });

  it('When a backlog keeps every send busy, Then a new event of another company is fanned out and delivered within a round, not after the round\'s 200 sends', async () => {
    const busy = await createWorld(h.app, h.db);
    const other = await createWorld(h.app, h.db);
    for (let i = 0; i < 10; i++) await subscribe(busy, `http://127.0.0.1:9/busy-${i}`, ['article.created']);
    const waiting = await subscribe(other, 'http://127.0.0.1:9/other', ['article.created']);
    for (let i = 0; i < 30; i++) await createArticle(busy);
    let busySent = 0;
    let busySentWhenOtherArrived: number | undefined;
    const worker = testWorker(h.db, Date.now as Clock, {
      pollMs: 1000,
      roundMs: 100,
      send: async (url): Promise<SendResult> => {
        if (url.endsWith('/other')) {
          busySentWhenOtherArrived ??= busySent;
          return { status: 204 };
        }
        await new Promise((resolve) => setTimeout(resolve, 30));
        busySent++;
        return { status: 204 };
      },
    });
    worker.start();
    try {
      await until(async () => busySent >= 10, 20_000, 'the backlog under way');
      await createArticle(other);
      await until(async () => (await deliveries(other, waiting.id)).some((d) => d.status === 'delivered'), 30_000, 'the other company served');
    } finally {
      await worker.stop();
    }
    // Fanned out only when a round ends: before, after the round's 200 sends (at 6 at once, 30 ms each).
    expect(busySentWhenOtherArrived, 'backlog sends before the new event was sent').to.be.below(150);
  });

  it(`When one subscription's backlog keeps its ${SENDS_PER_SUBSCRIPTION} sends busy past the end of a round, Then the next round starts at once: no send waits a poll while deliveries are due`, async () => {
    const world = await createWorld(h.app, h.db);
    const steady = await subscribe(world, 'http://127.0.0.1:9/steady', ['article.created']);
    for (let i = 0; i < 40; i++) await createArticle(world);
    let underWay = 0;
    let idleSince: number | undefined;
    let longestIdle = 0;
    const worker = testWorker(h.db, Date.now as Clock, {
      pollMs: 2000,
      roundMs: 300,
      send: async (): Promise<SendResult> => {
        // Time with no send under way, ended by this send: deliveries were due all along.
        if (underWay === 0 && idleSince !== undefined) longestIdle = Math.max(longestIdle, performance.now() - idleSince);
        underWay++;
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (--underWay === 0) idleSince = performance.now();
        return { status: 204 };
      },
    });
    worker.start();
    try {
      await until(async () => (await deliveries(world, steady.id)).filter((d) => d.status === 'delivered').length === 40, 60_000, 'the backlog delivered');
    } finally {
      await worker.stop();
    }
    // A round that ended while its sends were under way was taken for an idle one: a poll (2 s) went by.
    expect(longestIdle, 'the longest time no send was under way (ms)').to.be.below(1000);
  });
});
