/**
 * The events feed across instances (GET /api/events). Writers on every instance (each on its own
 * node) create articles while a reader follows next_cursor through HAProxy, each page served by
 * whichever instance it reaches; every instance stamps the feed every 250 ms and on each read, so
 * stamps run on three nodes at once, and those that read the same last place fail certification
 * (or are aborted by the winner's writeset) and run again. The reader must see every committed
 * event exactly once; then each instance, read directly from the same cursor, must serve the same
 * feed in the same order, and every node must hold the same places, without a gap.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Api } from '../../helpers/api.js';
import { feedPlaces, placesHeld } from '../../fixtures/probes.js';
import type { RemoteWorld } from '../remote.js';
import type { Stack } from '../stack.js';
import { poll, type Report } from '../report.js';
import { settled, statusCounts } from './support.js';

const WRITERS_PER_INSTANCE = 2;
const ARTICLES_PER_WRITER = 15;
const PER_PAGE = 7;
const TYPES = 'types=article.created';

interface FeedEvent {
  id: string;
  data: { id: number };
}

/** One page after `cursor` (an event id, or the start); undefined when the request failed. */
async function page(agent: Api, cursor: string | undefined, perPage = PER_PAGE): Promise<{ data: FeedEvent[]; next: string | null } | undefined> {
  const res = await settled(agent.get(`/api/events?${TYPES}&per_page=${perPage}${cursor ? `&after=${cursor}` : ''}`));
  if (res?.status !== 200) return undefined;
  return { data: res.body.data as FeedEvent[], next: res.body.meta.next_cursor as string | null };
}

/** Every event after `cursor` that the feed has now, following next_cursor (pages of 500). */
async function readToEnd(agent: Api, cursor: string | undefined): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (;;) {
    const got = await page(agent, cursor, 500);
    if (!got) throw new Error('a page of the feed was not answered 200');
    events.push(...got.data);
    if (got.data.length > 0) cursor = got.data[got.data.length - 1]!.id;
    if (got.next === null) return events;
  }
}

/** The Galera nodes' count of local certification failures and brute-force aborts (undefined off Galera). */
async function conflicts(dbs: readonly Knex[]): Promise<number | undefined> {
  let total = 0;
  for (const db of dbs) {
    const [rows] = (await db.raw("SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')")) as [Array<{ Value: string }>];
    if (rows.length === 0) return undefined;
    total += rows.reduce((sum, r) => sum + Number(r.Value), 0);
  }
  return total;
}

export async function eventsFeedScenario(stack: Stack, world: RemoteWorld, report: Report): Promise<void> {
  const reader = world.as('viewer');
  const before = await readToEnd(reader, undefined);
  const start = before.at(-1)?.id;
  const conflictsBefore = await conflicts(stack.nodeDbs);

  const created: number[] = [];
  const answers: Array<{ status: number } | undefined> = [];
  const writer = async (url: string, n: number) => {
    for (let i = 0; i < ARTICLES_PER_WRITER; i++) {
      const code = `FEED-${n}-${i}-${randomBytes(3).toString('hex')}`;
      const res = await settled(world.at(url, 'operator').post('/api/articles').send({ article_code: code, description: 'Feed across nodes', um3pl: 'BUC' }));
      answers.push(res);
      if (res?.status === 201) created.push(res.body.data.id as number);
    }
  };

  const seen: FeedEvent[] = [];
  let cursor = start;
  let failedPages = 0;
  const poll1 = async (): Promise<number> => {
    const got = await page(reader, cursor);
    if (!got) {
      failedPages++;
      return 0;
    }
    seen.push(...got.data);
    if (got.data.length > 0) cursor = got.data[got.data.length - 1]!.id;
    return got.data.length;
  };

  let writing = true;
  const started = Date.now();
  const writers = Promise.all(stack.instances.flatMap((instance, i) => Array.from({ length: WRITERS_PER_INSTANCE }, (_, w) => writer(instance.url, i * WRITERS_PER_INSTANCE + w))));
  const reading = (async () => {
    while (writing) {
      await poll1();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await writers;
  writing = false;
  await reading;
  const wrote = Date.now() - started;
  // The last events get their places within the stampers' quarter second (or at the next read).
  const settledIn = await poll(async () => {
    while ((await poll1()) > 0);
    const ids = new Set(seen.map((e) => e.data.id));
    return created.every((id) => ids.has(id));
  }, 30_000, 100);

  const counts = statusCounts(answers);
  report.figure('events feed: writers', `${stack.instances.length} instances x ${WRITERS_PER_INSTANCE} writers x ${ARTICLES_PER_WRITER} articles in ${(wrote / 1000).toFixed(1)} s, answers ${JSON.stringify(counts)}`);
  report.expect('events feed: every write answered 201', counts['201'] === answers.length, JSON.stringify(counts));
  const mine = seen.filter((e) => created.includes(e.data.id));
  const perArticle = new Map<number, number>();
  for (const e of mine) perArticle.set(e.data.id, (perArticle.get(e.data.id) ?? 0) + 1);
  const missing = created.filter((id) => !perArticle.has(id));
  const twice = [...perArticle].filter(([, n]) => n > 1);
  report.expect(
    'events feed: the reader through HAProxy saw every committed event exactly once',
    settledIn !== undefined && missing.length === 0 && twice.length === 0 && new Set(seen.map((e) => e.id)).size === seen.length,
    `${created.length} created, ${mine.length} of them read, ${missing.length} missing, ${twice.length} twice, ${failedPages} pages not answered 200; all read ${settledIn === undefined ? 'not within 30 s' : `${settledIn} ms after the writers ended`}`,
  );
  report.expect('events feed: no page of the reader failed (no 5xx, no unknown cursor)', failedPages === 0, `${failedPages} failed pages`);

  const feeds = await Promise.all(stack.instances.map((instance) => readToEnd(world.at(instance.url, 'viewer'), start)));
  const order = (events: FeedEvent[]) => events.map((e) => e.id).join(',');
  report.expect(
    'events feed: every instance serves the same feed, in the order the reader saw it',
    feeds.every((feed) => order(feed) === order(seen)),
    feeds.map((feed, i) => `${stack.instances[i]!.name}: ${feed.length} events`).join(', ') + `; the reader: ${seen.length}`,
  );

  const ids = seen.map((e) => e.id);
  const places = await Promise.all(stack.nodeDbs.map((db) => feedPlaces(db, ids)));
  const samePlaces = places.every((p) => JSON.stringify(p) === JSON.stringify(places[0]));
  const [low, high] = [places[0]![0]?.feed_seq ?? 0, places[0]!.at(-1)?.feed_seq ?? 0];
  const held = await Promise.all(stack.nodeDbs.map((db) => placesHeld(db, low, high)));
  report.expect(
    'events feed: every node holds the same places, and every place from the first to the last of them is held once',
    samePlaces && places[0]!.every((p) => p.feed_seq !== null) && held.every((n) => n === high - low + 1),
    `places ${low}-${high} on ${stack.nodeDbs.length} nodes, held ${held.join('/')}`,
  );
  const conflictsAfter = await conflicts(stack.nodeDbs);
  report.figure(
    'events feed: certification failures and brute-force aborts on the nodes during the scenario (the stamps, and the article id sequence of the creates)',
    conflictsBefore === undefined || conflictsAfter === undefined ? 'not a Galera cluster' : String(conflictsAfter - conflictsBefore),
  );
}
