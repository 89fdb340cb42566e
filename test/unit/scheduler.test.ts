/** The in-process scheduler (src/scheduler.ts): its rounds, and a stop that waits for the round under way. */
import { expect } from 'chai';
import { pino } from 'pino';
import { startScheduler } from '../../src/scheduler.js';
import { isolatedHarness, type Isolated } from '../helpers/harness.js';

describe('Scheduler', () => {
  let h: Isolated;

  before(async () => {
    h = await isolatedHarness();
  });
  after(async () => h.close());

  it('When the scheduler is stopped while a job runs, Then stop resolves only once that round has finished, and no round starts after it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    let finished = 0;
    const job = {
      name: 'gated',
      run: async () => {
        runs++;
        await gate;
        finished++;
      },
    };
    const scheduler = startScheduler(h.db, pino({ level: 'silent' }), [job], 10);
    while (runs === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped, 'stop() resolved while the job ran').to.equal(false);
    release();
    await stopping;
    expect(finished).to.equal(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs, 'no round after stop').to.equal(1);
  });
});
