/**
 * The webhook worker as its own process (`npm run worker`), for scaling delivery out: on
 * MySQL/MariaDB any number of workers run side by side, also on different nodes of a Galera
 * cluster (a claim is a conditional UPDATE whose rows decide: webhooks.queue.ts claimDue); on
 * SQLite, run one (or the in-process worker of the server, WORKER=in-process). With
 * WORKER_METRICS_PORT it serves GET /metrics there (its delivery attempts, the backlogs it samples,
 * the process). SIGTERM lets the sends under way finish and releases the rest of its claims.
 */
import { loadConfigOrExit, exitOnStartupFailure } from './platform/startup.js';
import { createDb } from './platform/db/database.js';
import { createLogger, knexLog } from './platform/logger.js';
import { createMetrics } from './platform/metrics.js';
import { createMetricsServer, listen } from './platform/metrics-server.js';
import { createWebhookWorker } from './components/webhooks/webhooks.worker.js';
import { startBacklogSampler, type BacklogSampler } from './components/webhooks/webhooks.backlog.js';

const config = loadConfigOrExit();
const logger = createLogger(config);
const db = createDb(config.databaseUrl, { log: knexLog(logger) });
const metrics = createMetrics();
const worker = createWebhookWorker({
  db,
  logger,
  timeoutMs: config.webhookTimeoutMs,
  allowPrivateTargets: config.webhookAllowPrivateTargets,
  allowHttp: config.webhookAllowHttp,
  pollMs: config.workerPollMs,
  metrics,
});

let backlog: BacklogSampler | undefined;
const metricsServer = config.workerMetricsPort === undefined ? undefined : createMetricsServer(metrics);
if (metricsServer) {
  // A port in use or a HOST that does not resolve: one JSON line and exit 1, before any delivery.
  const port = await listen(metricsServer, config.workerMetricsPort!, config.host).catch(exitOnStartupFailure);
  backlog = startBacklogSampler(db, metrics, logger);
  const shown = config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info({ host: config.host, port }, `webhook worker metrics on ${shown}:${port}/metrics`);
}
let stopping = false;
const stop = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'webhook worker stopping');
  backlog?.stop();
  metricsServer?.close();
  void worker.stop().then(async () => {
    await db.destroy();
    process.exit(0);
  });
};
// Before it says it has started: a supervisor may stop it the moment it reads that line, and a
// SIGTERM without a handler ends the process at once, its claims held until they expire.
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
worker.start();
logger.info('webhook worker started');
