/**
 * The webhook drain, reported (issue 25 gives it no target): a subscription of the bench client to
 * `stock.changed` on a local receiver that answers 200 at once, a burst of adjustments (one
 * `stock.changed` each) from 10 connections, and the time until the receiver has every delivery.
 * What it measures is how fast one API process, with its in-process worker, fans out and sends what
 * a busy integration writes to one subscription (at most 4 sends of a subscription at once): the
 * deliveries per second from the burst's first request to the last delivery, and how long the
 * backlog took to drain once the burst was over. Deliveries are told apart by their event id
 * (`webhook-id`), so a delivery sent again counts once; the ones expected are those the worker
 * made for the subscription, once every event of the burst has been fanned out.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { Knex } from 'knex';
import type { AddressInfo } from 'node:net';
import { deleteWebhook, insertWebhook } from '../../src/components/webhooks/webhooks.repository.js';
import { createDb } from '../../src/platform/db/database.js';
import { drive, type Load } from './load.js';
import type { Started } from './servers.js';

export interface Drain {
  /** Deliveries made for the subscription (one per adjustment answered 201, and any other stock.changed meanwhile). */
  deliveries: number;
  /** From the burst's first request to its last answer. */
  burstSeconds: number;
  /** From the burst's last answer to the last delivery received. */
  drainSeconds: number;
  /** Deliveries per second, from the burst's first request to the last delivery. */
  perSecond: number;
}

const GIVE_UP_MS = 180_000;

/** The deliveries the worker made for the subscription, once no event waits for its fan-out (undefined while some do). */
async function expectedDeliveries(db: Knex, webhookId: number): Promise<number | undefined> {
  const count = async (query: Knex.QueryBuilder): Promise<number> => Number(((await query.count({ n: '*' }).first()) as { n: number | string }).n);
  if ((await count(db('outbox_events').whereNull('dispatched_at').whereNull('fan_out_failed_at'))) > 0) return undefined;
  return count(db('webhook_deliveries').where('webhook_id', webhookId));
}

export async function webhookDrain(full: Started, dbUrl: string, companyId: number, burst: { load: Load; amount: number }): Promise<Drain> {
  const received = new Set<string>();
  let lastAt = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && !received.has(id)) {
        received.add(id);
        lastAt = performance.now();
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const db = createDb(dbUrl);
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const webhookId = await insertWebhook(db, { company_id: companyId, url, events: ['stock.changed'], description: 'bench: webhook drain', secret: randomBytes(32).toString('hex'), active: true });
  try {
    const started = performance.now();
    const answered = await drive(full, burst.load, { amount: burst.amount });
    const burstEnd = performance.now();
    const written = answered.statuses['201'] ?? 0;
    if (written === 0) throw new Error(`webhook drain: the burst answered ${JSON.stringify(answered.statuses)}`);
    let deliveries: number | undefined;
    while (deliveries === undefined || received.size < deliveries) {
      if (performance.now() - burstEnd > GIVE_UP_MS) throw new Error(`webhook drain: ${received.size} of ${deliveries ?? 'at least ' + written} deliveries after ${GIVE_UP_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (deliveries === undefined || received.size >= deliveries) deliveries = await expectedDeliveries(db, webhookId);
    }
    if (deliveries < written) throw new Error(`webhook drain: ${deliveries} deliveries for ${written} adjustments`);
    return {
      deliveries,
      burstSeconds: (burstEnd - started) / 1000,
      drainSeconds: Math.max(0, lastAt - burstEnd) / 1000,
      perSecond: deliveries / ((lastAt - started) / 1000),
    };
  } finally {
    await deleteWebhook(db, webhookId);
    await db.destroy();
    await new Promise((resolve) => receiver.close(resolve));
  }
}
