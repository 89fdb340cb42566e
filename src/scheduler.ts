/**
 * The in-process scheduler: runs the periodic jobs every minute and records the `cron`
 * heartbeat that health reports, so a stalled scheduler shows as a stale heartbeat.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { CRON_HEARTBEAT, recordHeartbeat } from './components/health/health.service.js';

export interface ScheduledJob {
  name: string;
  run(db: Knex): Promise<void>;
}

export interface Scheduler {
  /** Runs one round now (the timer runs them every interval). */
  tick(): Promise<void>;
  /** Stops the timer; resolves once a round under way has finished (before the database closes). */
  stop(): Promise<void>;
}

export function startScheduler(db: Knex, logger: Logger, jobs: readonly ScheduledJob[] = [], intervalMs = 60_000): Scheduler {
  let running: Promise<void> | undefined;
  const tick = async (): Promise<void> => {
    if (running) return running;
    running = (async () => {
      for (const job of jobs) {
        await job.run(db).catch((err: unknown) => logger.error({ err, job: job.name }, 'scheduled job failed'));
      }
      await recordHeartbeat(db, CRON_HEARTBEAT).catch((err: unknown) => logger.warn({ err }, 'heartbeat not recorded'));
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return {
    tick,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
