/**
 * The webhook worker as its own process (`npm run worker`), for scaling delivery out: on
 * MySQL/MariaDB any number of workers run side by side, also on different nodes of a Galera
 * cluster (a claim is a conditional UPDATE whose rows decide: webhooks.queue.ts claimDue); on
 * SQLite, run one (or the in-process worker of the server, WORKER=in-process). SIGTERM lets the sends under
 * way finish and releases the rest of its claims.
 */
import { loadConfigOrExit } from './platform/startup.js';
import { createDb } from './platform/db/database.js';
import { createLogger, knexLog } from './platform/logger.js';
import { createWebhookWorker } from './components/webhooks/webhooks.worker.js';

const config = loadConfigOrExit();
const logger = createLogger(config);
const db = createDb(config.databaseUrl, { log: knexLog(logger) });
const worker = createWebhookWorker({
  db,
  logger,
  timeoutMs: config.webhookTimeoutMs,
  allowPrivateTargets: config.webhookAllowPrivateTargets,
  allowHttp: config.webhookAllowHttp,
  pollMs: config.workerPollMs,
});
worker.start();
logger.info('webhook worker started');

let stopping = false;
const stop = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'webhook worker stopping');
  void worker.stop().then(async () => {
    await db.destroy();
    process.exit(0);
  });
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
