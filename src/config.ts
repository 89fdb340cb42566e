/**
 * The only reader of process.env: parses, validates and freezes the configuration. A bad value
 * stops the start with one line that names the variable and says what is expected.
 */
import { createRequire } from 'node:module';

export type WorkerMode = 'in-process' | 'off';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly appName: string;
  readonly appEnv: string;
  readonly production: boolean;
  readonly host: string;
  readonly port: number;
  readonly appUrl: string;
  readonly databaseUrl: string;
  readonly redisUrl: string | undefined;
  /** The prefix of this service's keys and channels in Redis, so that services (and test runs) sharing one Redis do not meet. */
  readonly redisPrefix: string;
  readonly etsmToken: string | undefined;
  readonly mdmToken: string | undefined;
  readonly anafEnabled: boolean;
  readonly logLevel: LogLevel;
  readonly worker: WorkerMode;
  /** Logins per client address and email, and per client address over all emails. */
  readonly rateLimitAuthPerMinute: number;
  readonly rateLimitAuthPerAddressPerMinute: number;
  readonly rateLimitDataPerMinute: number;
  /** Failed authentications per client address before its credentials are refused unread. */
  readonly rateLimitFailedAuthPerMinute: number;
  /** Password checks (scrypt) run at once, and how many more may wait for one (beyond: 503). */
  readonly loginHashConcurrency: number;
  readonly loginHashQueue: number;
  readonly storagePath: string;
  readonly heartbeatStaleMinutes: number;
  readonly trustProxy: boolean | number | string;
  /** Webhook URLs may be http (not only https): local demos. */
  readonly webhookAllowHttp: boolean;
  /** Webhook URLs may resolve to loopback, private or link-local addresses: tests and local demos. */
  readonly webhookAllowPrivateTargets: boolean;
  readonly webhookTimeoutMs: number;
  /** The most webhook subscriptions one company may own. */
  readonly webhookMaxSubscriptions: number;
  /** How often the webhook worker looks for work. */
  readonly workerPollMs: number;
  /** WORKER_METRICS_PORT: where a worker run as its own process serves GET /metrics (on HOST); unset: it serves none. */
  readonly workerMetricsPort: number | undefined;
  /** How long events stay readable in GET /api/events (30 days at least). */
  readonly eventsRetentionDays: number;
  /** How long a verified token and a resolved company access are reused (0: looked up on every request). */
  readonly authCacheTtlSeconds: number;
  /** How long a client may take to send a request's headers, and the whole request; idle keep-alive. */
  readonly httpHeadersTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
  readonly httpKeepAliveTimeoutMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, key: string, fallback: string): string {
  const value = env[key];
  return value === undefined || value === '' ? fallback : value;
}

function optional(env: Env, key: string): string | undefined {
  const value = env[key];
  return value === undefined || value === '' ? undefined : value;
}

function int(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${key} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function bool(env: Env, key: string, fallback: boolean): boolean {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${key} must be true or false (got "${raw}")`);
}

function oneOf<T extends string>(env: Env, key: string, allowed: readonly T[], fallback: T): T {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${key} must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

/**
 * A database or Redis URL as an error may show it: its password never (`mysql://tpl:***@db:3306/tpl`),
 * even one holding `/`, `#` or `?` that should have been percent-encoded (up to the last `@`).
 */
export function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):.*@/i, '$1:***@');
}

/** A refusal of a URL variable: its name, what is wrong, the value with its password hidden. */
function refusedUrl(key: string, url: string, why: string): ConfigError {
  return new ConfigError(`${key} ${why} (got "${withoutPassword(url)}")`);
}

/** `url` when WHATWG parses it and it names a host; else a refusal that shows `form`, the shape it should have. */
function serverUrl(key: string, url: string, form: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refusedUrl(key, url, `is not a valid URL: ${form}, with a numeric port and special characters of the password percent-encoded`);
  }
  if (parsed.hostname === '') throw refusedUrl(key, url, `names no host: ${form}`);
  return url;
}

function databaseUrl(env: Env): string {
  const url = str(env, 'DATABASE_URL', 'sqlite:./data/dev.sqlite');
  if (/^sqlite:.+/.test(url)) return url;
  const form = 'mysql://user:pass@host:port/db';
  if (!/^mysql:\/\/.+/.test(url)) throw refusedUrl('DATABASE_URL', url, `must be sqlite:<path>, sqlite::memory: or ${form}`);
  return serverUrl('DATABASE_URL', url, form);
}

/**
 * Whether Express takes `value` as its `trust proxy` setting: a list of addresses, CIDR ranges or
 * netmasks and the names loopback, linklocal, uniquelocal, read by Express itself (it throws on
 * anything else). Express is loaded here only for such a list, so the CLI does not pay for it.
 */
function expressTrusts(value: string): boolean {
  const express = createRequire(import.meta.url)('express') as () => { set(name: string, value: unknown): unknown };
  try {
    express().set('trust proxy', value);
    return true;
  } catch {
    return false;
  }
}

function trustProxy(env: Env): boolean | number | string {
  const raw = optional(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  if (!expressTrusts(raw)) {
    throw new ConfigError(
      `TRUST_PROXY must be true, false, a number of hops, or a comma list of proxy addresses, CIDR ranges and loopback, linklocal or uniquelocal (got "${raw}")`,
    );
  }
  return raw;
}

/** REDIS_URL when set: redis:// or rediss:// with a host, checked here so that a bad one is one line naming it, its password hidden. */
function redisUrl(env: Env): string | undefined {
  const url = optional(env, 'REDIS_URL');
  if (url === undefined) return undefined;
  if (!/^rediss?:\/\//i.test(url)) throw refusedUrl('REDIS_URL', url, 'must start with redis:// or rediss://');
  const form = 'redis://[:password@]host:port[/db]';
  serverUrl('REDIS_URL', url, form);
  // node-redis takes the path as the database number and throws "Invalid pathname" on anything else.
  if (!/^(\/\d*)?$/.test(new URL(url).pathname)) throw refusedUrl('REDIS_URL', url, `names a database that is not a number: ${form}`);
  return url;
}

function redisPrefix(env: Env): string {
  const value = str(env, 'REDIS_PREFIX', 'tpl');
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(value)) throw new ConfigError(`REDIS_PREFIX must be 1 to 64 letters, digits or . _ : - (got "${value}")`);
  return value;
}

/** An http(s) URL with a host and no spaces (it goes into links and the served document's servers), without its trailing slashes. */
function url(env: Env, key: string, fallback: string): string {
  const value = str(env, key, fallback).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(value) || !URL.canParse(value)) {
    throw new ConfigError(`${key} must be an http(s) URL with a host and no spaces, such as https://api.example.com (got "${value}")`);
  }
  return value;
}

/**
 * APP_ENV (NODE_ENV when it is unset): any name, `production` turning production behaviour on. A
 * name that looks meant as production (`prod`, `Production`, `PRODUCTION`) is refused rather than
 * run without it in silence.
 */
function appEnvironment(env: Env): string {
  const key = optional(env, 'APP_ENV') === undefined ? 'NODE_ENV' : 'APP_ENV';
  const value = str(env, 'APP_ENV', str(env, 'NODE_ENV', 'local'));
  if (value !== 'production' && /^\s*pro?d/i.test(value)) {
    throw new ConfigError(`${key} "${value}" would run without production behaviour: write production (in lower case), or give another environment a name that does not start with prod`);
  }
  return value;
}

export function loadConfig(env: Env = process.env): Config {
  const appEnv = appEnvironment(env);
  const port = int(env, 'PORT', 3000, 0, 65535);
  const httpRequestTimeoutMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  const httpHeadersTimeoutMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS', Math.min(20_000, httpRequestTimeoutMs), 100, httpRequestTimeoutMs);
  return Object.freeze({
    appName: str(env, 'APP_NAME', '3PL Integration API'),
    appEnv,
    production: appEnv === 'production',
    host: str(env, 'HOST', '0.0.0.0'),
    port,
    appUrl: url(env, 'APP_URL', `http://localhost:${port}`),
    databaseUrl: databaseUrl(env),
    redisUrl: redisUrl(env),
    redisPrefix: redisPrefix(env),
    etsmToken: optional(env, 'ETSM_TOKEN'),
    mdmToken: optional(env, 'MDM_TOKEN'),
    anafEnabled: bool(env, 'ANAF_ENABLED', false),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    worker: oneOf(env, 'WORKER', ['in-process', 'off'] as const, 'in-process'),
    rateLimitAuthPerMinute: int(env, 'RATE_LIMIT_AUTH_PER_MINUTE', 10, 1, 10_000_000),
    rateLimitAuthPerAddressPerMinute: int(env, 'RATE_LIMIT_AUTH_PER_ADDRESS_PER_MINUTE', 30, 1, 10_000_000),
    rateLimitDataPerMinute: int(env, 'RATE_LIMIT_DATA_PER_MINUTE', 60, 1, 10_000_000),
    rateLimitFailedAuthPerMinute: int(env, 'RATE_LIMIT_FAILED_AUTH_PER_MINUTE', 30, 1, 10_000_000),
    loginHashConcurrency: int(env, 'LOGIN_HASH_CONCURRENCY', 4, 1, 64),
    loginHashQueue: int(env, 'LOGIN_HASH_QUEUE', 32, 0, 10_000),
    storagePath: str(env, 'STORAGE_PATH', './storage'),
    heartbeatStaleMinutes: int(env, 'HEARTBEAT_STALE_MINUTES', 5, 1, 10_080),
    trustProxy: trustProxy(env),
    webhookAllowHttp: bool(env, 'WEBHOOK_ALLOW_HTTP', false),
    webhookAllowPrivateTargets: bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookMaxSubscriptions: int(env, 'WEBHOOK_MAX_SUBSCRIPTIONS', 25, 1, 1000),
    workerPollMs: int(env, 'WORKER_POLL_MS', 1000, 10, 60_000),
    workerMetricsPort: optional(env, 'WORKER_METRICS_PORT') === undefined ? undefined : int(env, 'WORKER_METRICS_PORT', 0, 0, 65535),
    eventsRetentionDays: int(env, 'EVENTS_RETENTION_DAYS', 30, 30, 3650),
    authCacheTtlSeconds: int(env, 'AUTH_CACHE_TTL_SECONDS', 10, 0, 300),
    httpHeadersTimeoutMs,
    httpRequestTimeoutMs,
    httpKeepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
  });
}
