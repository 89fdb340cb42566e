/**
 * The feed's promise under concurrency: writers whose transactions stay open for a while (so ids
 * are taken long before their events commit, and commit out of id order on MariaDB) against a
 * reader that polls GET /api/events and follows next_cursor. Every committed event is read
 * exactly once, and the places the stamper gives are unique and without gaps.
 *
 * Only MariaDB can break the promise this way: SQLite runs one transaction at a time on its one
 * connection, so there the writers' commits cannot interleave with a stamp or a read and the test
 * cannot fail on the interleaving it guards against (it still checks the feed end to end). The
 * gap check looks only at the places from the first to the last of this test's events, which no
 * other suite's events can take (suites run one after another, and no suite deletes events of
 * the shared database), so events of earlier suites, stamped or waiting, cannot disturb it.
 */
import { expect } from 'chai';
import { recordEvent } from '../../src/platform/outbox.js';
import { EVENTS_FEED, stampAll } from '../../src/platform/feeds/sequencer.js';
import { createWorld, type World } from '../helpers/factories.js';
import { harness, type Harness } from '../helpers/harness.js';
import { feedPlaces, placesHeld } from '../fixtures/probes.js';

const WRITERS = 6;
const EVENTS_PER_WRITER = 12;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /api/events under concurrent writers', function () {
  this.timeout(120_000);
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  it(`When ${WRITERS} writers commit ${WRITERS * EVENTS_PER_WRITER} events with delays inside their transactions while a reader polls and stampers run, Then the reader sees every committed event exactly once, in one order`, async () => {
    const committed: string[] = [];
    let writing = true;
    // An article as the API shows it: the feed's contract check holds article.updated's data to the Article schema.
    const article = (await world.as('viewer').get(`/api/articles/${world.articles.client.id}`).expect(200)).body.data as unknown;
    const writer = async () => {
      for (let i = 0; i < EVENTS_PER_WRITER; i++) {
        const id = await h.db.transaction(async (tx) => {
          const eventId = await recordEvent(tx, { companyId: world.client.id, type: 'article.updated', data: article });
          await sleep(Math.random() * 25);
          return eventId;
        });
        committed.push(id);
        await sleep(Math.random() * 5);
      }
    };
    const stamper = async () => {
      while (writing) {
        await stampAll(h.db, EVENTS_FEED);
        await sleep(3);
      }
    };

    const seen: string[] = [];
    let cursor: string | undefined;
    const poll = async () => {
      const res = await world
        .as('viewer')
        .get(`/api/events?types=article.updated&per_page=7${cursor ? `&after=${cursor}` : ''}`)
        .expect(200);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      if (res.body.data.length > 0) cursor = res.body.data[res.body.data.length - 1].id;
      if (res.body.meta.next_cursor !== null) expect(res.body.meta.next_cursor).to.equal(cursor);
      return res.body.data.length as number;
    };
    const reader = async () => {
      while (writing) {
        await poll();
        await sleep(2);
      }
    };

    const writers = Promise.all(Array.from({ length: WRITERS }, () => writer()));
    const running = Promise.all([stamper(), stamper(), reader()]);
    await writers;
    writing = false;
    await running;
    while ((await poll()) > 0);

    expect(committed).to.have.length(WRITERS * EVENTS_PER_WRITER);
    expect(new Set(seen).size, 'no event read twice').to.equal(seen.length);
    expect([...seen].sort()).to.deep.equal([...committed].sort());

    const places = await feedPlaces(h.db, committed);
    expect(seen, 'read in feed order').to.deep.equal(places.map((p) => p.event_id));
    expect(places.every((p) => p.feed_seq !== null)).to.equal(true);
    const [low, high] = [places[0]!.feed_seq!, places.at(-1)!.feed_seq!];
    expect(await placesHeld(h.db, low, high), 'every place from the first to the last of them held once: no gap, no repeat').to.equal(high - low + 1);
  });
});
