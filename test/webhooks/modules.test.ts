/**
 * The modules decide at every send, not only at the fan-out: a delivery queued before a module it
 * needs went off (a retry, a ping, a redelivery) is not sent but recorded failed with the module
 * and company that withhold it, and ping and redeliver refuse (422) while it is off.
 */
import { expect } from 'chai';
import { setModules } from '../../db/seeds/builders.js';
import { createWorld, type World } from '../helpers/factories.js';
import type { Receiver } from '../helpers/receiver.js';
import { createArticle, deliveries, onlyDelivery, SECOND, subscribe, testClock, testWorker, workerSuite } from './support.js';

describe('Webhook deliveries and the modules at send time', () => {
  const suite = workerSuite();

  /** A receiver that answers 500 once, then 200. */
  async function failingOnce(): Promise<Receiver> {
    const target = await suite.receiver();
    target.script({ status: 500 });
    return target;
  }

  it("When the subscriber's webhooks module goes off while a delivery waits for its retry, Then the retry is not sent but recorded failed with the reason; ping and redeliver answer 422 until it is on again", async () => {
    const target = await failingOnce();
    const world = await createWorld(suite.app.app, suite.app.db);
    const { id: webhookId } = await subscribe(world, target.url, ['article.created']);
    await createArticle(world);
    const clock = testClock();
    const worker = testWorker(suite.app.db, clock);
    await worker.runOnce();
    expect(await onlyDelivery(world, webhookId)).to.include({ status: 'retrying', attempts: 1 });

    await setModules(suite.app.db, world.client.id, ['webhooks']);
    clock.advance(5 * SECOND);
    await worker.runOnce();
    expect(target.received, 'the retry was not sent').to.have.length(1);
    // The client cannot call the webhooks operations now (its module is off): its provider can.
    const provider = world.as('providerAdmin');
    await world.as('admin').get(`/api/webhooks/${webhookId}/deliveries`).expect(403);
    const log = await provider.get(`/api/webhooks/${webhookId}/deliveries`).expect(200);
    const withheld = log.body.data[0];
    expect(log.body.data).to.have.length(1);
    expect(withheld).to.include({
      status: 'failed',
      attempts: 1,
      next_attempt_at: null,
      // The one attempt made, as it was answered: the withheld retry sent nothing.
      last_response_code: 500,
      last_error: `Not sent: the webhooks module is off for company ${world.client.id}, the company that owns the subscription. Switch it on, then redeliver.`,
    });

    const refusal = `Nothing is sent while the webhooks module is off for company ${world.client.id}, the company that owns the subscription. Switch it on, then try again.`;
    const ping = await provider.post(`/api/webhooks/${webhookId}/ping`).expect(422);
    expect(ping.body.errors).to.deep.equal({ company_id: [refusal] });
    const again = await provider.post(`/api/webhooks/${webhookId}/deliveries/${withheld.id}/redeliver`).expect(422);
    expect(again.body.errors).to.deep.equal({ company_id: [refusal] });

    await setModules(suite.app.db, world.client.id, []);
    await world.as('admin').post(`/api/webhooks/${webhookId}/deliveries/${withheld.id}/redeliver`).expect(202);
    await worker.runOnce();
    expect(target.received).to.have.length(2);
    expect((await deliveries(world, webhookId)).map((d) => d.status)).to.deep.equal(['failed', 'delivered']);
  });

  it("When the module of the event's client goes off while the provider's subscription waits for a retry, Then it is withheld naming the client and its module", async () => {
    const target = await failingOnce();
    const world = await createWorld(suite.app.app, suite.app.db);
    const res = await world.as('providerAdmin').post('/api/webhooks').send({ url: target.url, events: ['article.created'] }).expect(201);
    const webhookId = res.body.data.id as number;
    await createArticle(world);
    const clock = testClock();
    const worker = testWorker(suite.app.db, clock);
    await worker.runOnce();
    expect(target.received).to.have.length(1);

    await setModules(suite.app.db, world.client.id, ['articles']);
    clock.advance(5 * SECOND);
    await worker.runOnce();
    expect(target.received, 'the retry was not sent').to.have.length(1);
    const log = await world.as('providerAdmin').get(`/api/webhooks/${webhookId}/deliveries`).expect(200);
    expect(log.body.data[0]).to.include({
      status: 'failed',
      attempts: 1,
      last_response_code: 500,
      last_error: `Not sent: the articles module is off for company ${world.client.id}, the company the event is about. Switch it on, then redeliver.`,
    });
    await setModules(suite.app.db, world.client.id, []);
  });

  it('When every module is on, Then a retry is sent as before (the check lets it go)', async () => {
    const target = await failingOnce();
    const world: World = await createWorld(suite.app.app, suite.app.db);
    const { id: webhookId } = await subscribe(world, target.url, ['article.created']);
    await createArticle(world);
    const clock = testClock();
    const worker = testWorker(suite.app.db, clock);
    await worker.runOnce();
    clock.advance(5 * SECOND);
    await worker.runOnce();
    expect(target.received).to.have.length(2);
    expect(await onlyDelivery(world, webhookId)).to.include({ status: 'delivered', attempts: 2 });
  });
});
