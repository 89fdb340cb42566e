/** The process logger (pino): JSON lines on stdout, credentials redacted. */
import { pino, type Logger } from 'pino';
import type { Config } from '../config.js';

export function createLogger(config: Pick<Config, 'logLevel' | 'appName'>): Logger {
  return pino({
    name: config.appName,
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'password', '*.password', 'secret', '*.secret'],
  });
}
