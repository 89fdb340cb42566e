/**
 * The log of a background loop that fails again and again for one cause (the database down): the
 * first failure at its level, the repeats at debug, and one line at info when it works again,
 * with how many rounds failed. A loop every 250 ms wrote 4 warn lines a second through an outage
 * (found by an operator's walk-through: 4 MB of log in 8 minutes), burying what else went wrong.
 */
import type { Logger } from 'pino';

export interface RepeatedFailureLog {
  /** A round failed: logged at `level` when the one before it did not fail, else at debug. */
  failed(err: unknown): void;
  /** A round worked: after failures, one info line saying so. */
  succeeded(): void;
}

export function repeatedFailureLog(logger: Logger, level: 'warn' | 'error', messages: { failing: string; recovered: string }): RepeatedFailureLog {
  let failures = 0;
  return {
    failed(err) {
      failures++;
      logger[failures === 1 ? level : 'debug']({ err, failures }, messages.failing);
    },
    succeeded() {
      if (failures === 0) return;
      logger.info({ failures }, messages.recovered);
      failures = 0;
    },
  };
}
