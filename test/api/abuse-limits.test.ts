/**
 * Abuse limits of the login: it takes as long for an unknown email as for a wrong password (no
 * probing for accounts by time), and its per-address limit cannot be dodged with X-Forwarded-For
 * unless TRUST_PROXY says a proxy sets it.
 */
import { expect } from 'chai';
import { api } from '../helpers/api.js';
import { createUser, unique } from '../helpers/factories.js';
import { buildApp, testConfig, type Harness } from '../helpers/harness.js';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('Abuse limits of the login', () => {
  it('When an unknown email and a known email with a wrong password log in, Then both take about as long (the unknown one is not answered early)', async () => {
    const h = await buildApp();
    const user = await createUser(h.db);
    const timed = async (email: string): Promise<number> => {
      const started = process.hrtime.bigint();
      await api(h.app).post('/api/auth/token').send({ email, password: 'wrong-password' }).expect(422);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    await timed(user.email); // the first hash warms up
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 9; i++) {
      known.push(await timed(user.email));
      unknown.push(await timed(`${unique('nobody-')}@example.test`));
    }
    // The leak this guards against is an unknown email answered without the hash: a few percent
    // of the time. The bounds leave room for a busy machine (scrypt runs on libuv's thread pool,
    // shared with everything else there), which has put single medians 1.7x apart.
    const ratio = median(unknown) / median(known);
    expect(ratio, `median ms: unknown ${median(unknown).toFixed(1)}, known ${median(known).toFixed(1)}`).to.be.within(0.5, 2.5);
  });

  it('When X-Forwarded-For changes on every login without TRUST_PROXY, Then the limit of the address still applies', async () => {
    const h: Harness = await buildApp({ config: testConfig({ RATE_LIMIT_AUTH_PER_MINUTE: '3' }) });
    const user = await createUser(h.db);
    const from = (address: string) => api(h.app).post('/api/auth/token').set('X-Forwarded-For', address).send({ email: user.email, password: 'wrong-password' });
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) await from(address).expect(422);
    const fourth = await from('203.0.113.4');
    expect(fourth.status, fourth.text).to.equal(429);
  });
});
