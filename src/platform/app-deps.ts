/** What the app is built from: created by main.ts (or a test), handed to createApp and to handlers. */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { AuthCache } from '../kernel/identity.js';
import type { Metrics } from './metrics.js';
import type { RedisConnection } from './redis.js';

export interface AppDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Present when REDIS_URL is set. */
  readonly redis?: RedisConnection;
  /** Verified tokens and resolved access (AUTH_CACHE_TTL_SECONDS); createApp makes it when absent. */
  readonly authCache?: AuthCache;
}
