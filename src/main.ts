/**
 * The process: config -> logger -> database (migrated at start on SQLite) -> Redis (when
 * configured) and the auth cache that follows the other instances' changes through it -> app ->
 * listen; the scheduler beside it. SIGTERM and SIGINT stop accepting and stop the worker at once
 * (its sends under way finish, its other claims are released), let in-flight requests finish, then
 * close the auth cache's subscription, the database and Redis; after SHUTDOWN_GRACE_MS the process
 * exits regardless. A client cannot hold a connection: its headers, its whole request and an idle
 * keep-alive each have a time limit (checked every second).
 */
import net from 'node:net';
import { exitOnStartupFailure, loadConfigOrExit } from './platform/startup.js';
import { createApp } from './app.js';
import { closeEveryAnswer, createHttpServer } from './platform/http/http-server.js';
import { createDb, engineOf } from './platform/db/database.js';
import { createLogger, knexLog } from './platform/logger.js';
import { createMetrics } from './platform/metrics.js';
import { connectRedis } from './platform/redis.js';
import { startScheduler } from './scheduler.js';
import { watchSchema } from './components/health/schema-watch.js';
import { answerClientErrors } from './platform/http/client-errors.js';
import { startFeedStamper } from './platform/feeds/sequencer.js';
import { pruneEvents } from './components/events/events.service.js';
import { reallocateExpiredLots } from './components/stock/stock.service.js';
import { createWebhookWorker } from './components/webhooks/webhooks.worker.js';
import { startBacklogSampler } from './components/webhooks/webhooks.backlog.js';
import { pruneIdempotencyKeys } from './platform/idempotency/idempotency.js';
import { migrateLatest } from '../db/migrations/index.js';
import { createInstanceAuthCache } from './components/auth/auth.invalidation.js';

const SHUTDOWN_GRACE_MS = 20_000;
/** After SIGTERM, how often connections without a request under way are closed. */
const IDLE_SWEEP_MS = 250;

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config);
  const db = createDb(config.databaseUrl, { log: knexLog(logger) });
  if (engineOf(db) === 'sqlite') await migrateLatest(db);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, logger) : undefined;
  const auth = createInstanceAuthCache(config, redis, logger);
  const metrics = createMetrics();
  const { express } = await createApp({ config, db, logger, metrics, redis, authCache: auth.cache });
  const schemaWatch = watchSchema(db, logger);
  const scheduler = startScheduler(db, logger, [pruneIdempotencyKeys, pruneEvents(config.eventsRetentionDays), reallocateExpiredLots()]);
  const stamper = startFeedStamper(db, logger);
  const backlog = startBacklogSampler(db, metrics, logger);
  const worker =
    config.worker === 'in-process'
      ? createWebhookWorker({ db, logger, timeoutMs: config.webhookTimeoutMs, allowPrivateTargets: config.webhookAllowPrivateTargets, allowHttp: config.webhookAllowHttp, pollMs: config.workerPollMs, metrics })
      : undefined;
  worker?.start();

  const server = createHttpServer(express, {
    headersTimeout: config.httpHeadersTimeoutMs,
    requestTimeout: config.httpRequestTimeoutMs,
    connectionsCheckingInterval: 1000,
  });
  server.keepAliveTimeout = config.httpKeepAliveTimeoutMs;
  server.on('clientError', answerClientErrors(logger, metrics));
  // A port in use or a HOST that does not resolve: one JSON line and exit 1, as any start that fails.
  server.once('error', exitOnStartupFailure);
  server.listen(config.port, config.host, () => {
    server.off('error', exitOnStartupFailure);
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = typeof address === 'object' && address ? address.address : config.host;
    const shown = host.includes(':') ? `[${host}]` : host;
    logger.info({ host, port, appUrl: config.appUrl }, `listening on ${shown}:${port} (API at ${config.appUrl}/api, docs at ${config.appUrl}/docs)`);
  });

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // The timers stop now; a round or a stamp under way finishes before the database closes.
    backlog.stop();
    const background = Promise.all([scheduler.stop(), stamper.stop(), schemaWatch.stop()]);
    const force = setTimeout(() => {
      logger.warn('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    const stopped = worker?.stop();
    // Answers given while draining close their connection, those of requests already under way
    // too: a client does not send its next request on a connection the sweep below is about to
    // close (a reset, or a 502 from a proxy).
    closeEveryAnswer(express);
    // Stop accepting at once, but not http's close(), which also drops every connection without a
    // request under way, including one accepted just before the signal whose request the busy
    // process has not read yet (its client would see a reset). Idle connections are closed each
    // IDLE_SWEEP_MS instead: the first sweep comes after such a request has had time to be read.
    net.Server.prototype.close.call(server, async () => {
      clearInterval(sweep);
      await stopped;
      await background;
      await auth.close();
      await Promise.allSettled([db.destroy(), redis?.close()]);
      process.exit(0);
    });
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch(exitOnStartupFailure);
