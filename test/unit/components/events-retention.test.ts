/** The events feed's retention: the scheduled job removes what is older than EVENTS_RETENTION_DAYS once its fan-out is over. */
import { expect } from 'chai';
import { pruneEvents } from '../../../src/components/events/events.service.js';
import { nowDb } from '../../../src/kernel/time.js';
import { recordEvent } from '../../../src/platform/outbox.js';
import { createWorld } from '../../helpers/factories.js';
import { isolatedHarness, type Isolated } from '../../helpers/harness.js';
import { setEventTimes } from '../../fixtures/faults.js';
import { outboxRows } from '../../fixtures/probes.js';
import { endedEventsBefore } from '../../../src/components/events/events.repository.js';
import { testEnv } from '../../helpers/test-env.js';

const DAY_MS = 86_400_000;

describe('Events retention (the prune-events job)', () => {
  let h: Isolated;

  before(async () => {
    h = await isolatedHarness();
  });
  after(async () => h.close());

  it('When events are 31 days old and fanned out, Then they go; younger ones, and old ones whose fan-out is not over, stay', async () => {
    const world = await createWorld(h.app, h.db);
    // An article as the API shows it: the feed's contract check holds article.updated's data to the Article schema.
    const article = (await world.as('viewer').get(`/api/articles/${world.articles.client.id}`).expect(200)).body.data as unknown;
    const record = async (ageDays: number, dispatched: boolean | 'set aside') => {
      const id = await h.db.transaction((tx) => recordEvent(tx, { companyId: world.client.id, type: 'article.updated', data: article }));
      const at = nowDb(() => Date.now() - ageDays * DAY_MS);
      await setEventTimes(h.db, [id], { occurred_at: at, dispatched_at: dispatched === true ? at : null, fan_out_failed_at: dispatched === 'set aside' ? at : null });
      return id;
    };
    const old = await record(31, true);
    const oldPoison = await record(31, 'set aside');
    const oldWaiting = await record(31, false);
    const edge = await record(29, true);
    const fresh = await record(0, true);

    await pruneEvents(30).run(h.db);
    const left = (await outboxRows(h.db)).map((r) => r.event_id);
    expect(left).to.include.members([oldWaiting, edge, fresh]);
    expect(left).to.not.include.members([old]);
    expect(left).to.not.include(oldPoison);
    const res = await world.as('viewer').get('/api/events').expect(200);
    expect(res.body.data.map((e: { id: string }) => e.id)).to.have.members([oldWaiting, edge, fresh]);
  });

  it('When the job looks for old events, Then the database can read them through the occurred_at index, not the whole outbox', async () => {
    const query = endedEventsBefore(h.db, nowDb(() => Date.now() - 30 * DAY_MS), 1000).toSQL().toNative();
    const index = 'outbox_events_occurred_at_index';
    if (testEnv.engine === 'sqlite') {
      const plan = (await h.db.raw(`EXPLAIN QUERY PLAN ${query.sql}`, query.bindings as never[])) as Array<{ detail: string }>;
      expect(plan.map((step) => step.detail).join('; ')).to.include(`USING INDEX ${index} (occurred_at<?)`);
    } else {
      const [plan] = (await h.db.raw(`EXPLAIN ${query.sql}`, query.bindings as never[])) as [Array<{ possible_keys: string | null }>];
      expect(plan[0]!.possible_keys?.split(',')).to.include(index);
    }
  });
});
