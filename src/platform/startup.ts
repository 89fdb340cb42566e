/**
 * What a process entry (the server, the worker) does when it cannot start: one JSON line at fatal
 * on stderr that says why in `msg` (a bad configuration names the variable), then exit 1, with
 * no stack trace for a configuration mistake and no plain-text line among the JSON lines.
 */
import { ConfigError, loadConfig, type Config } from '../config.js';
import { logStartupFailure } from './logger.js';

/** loadConfig for a process entry point: a bad value is one line, and the process exits 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      logStartupFailure(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

/** The end of a process whose start failed otherwise (the database, a migration): the error, serialized as every logged error is. */
export function exitOnStartupFailure(error: unknown): never {
  logStartupFailure('The process could not start.', error);
  process.exit(1);
}
