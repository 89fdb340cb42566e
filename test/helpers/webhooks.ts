/** Webhook subscriptions built through the API, as a client would: one subscription and a queued ping. */
import type { World } from './factories.js';

/** A new subscription of the client with one queued delivery (a ping); new each time, since sweeps delete them. */
export async function subscription(world: World, clientId: number): Promise<{ webhookId: number; deliveryId: number }> {
  const agent = world.as('providerAdmin', clientId);
  const created = await agent.post('/api/webhooks').send({ url: 'http://127.0.0.1:9/hooks', events: ['*'] }).expect(201);
  const ping = await agent.post(`/api/webhooks/${created.body.data.id}/ping`).expect(202);
  return { webhookId: created.body.data.id as number, deliveryId: ping.body.data.id as number };
}

/**
 * Runs the worker's rounds until one leaves nothing for the next (a round fans out and sends a
 * bounded number, so a database that earlier suites filled takes several).
 */
export async function drain(worker: { runOnce(): Promise<{ busy: boolean }> }, maxRounds = 200): Promise<void> {
  for (let round = 0; round < maxRounds; round++) if (!(await worker.runOnce()).busy) return;
  throw new Error(`The webhook worker was still busy after ${maxRounds} rounds`);
}
