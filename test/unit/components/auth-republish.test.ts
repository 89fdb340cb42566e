/**
 * A change Redis did not take (auth.invalidation.ts createRepublisher) is sent again until it is
 * taken, in order, and dropped unsent once the cache's TTL has passed: an instance whose
 * subscription outlived a short Redis stall hears a revocation made during it.
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { createRepublisher, REPUBLISH_EVERY_MS } from '../../../src/components/auth/auth.invalidation.js';
import type { AuthChange } from '../../../src/kernel/identity.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quiet = pino({ level: 'silent' });

/** A send that fails while `down` is true and records what it delivered. */
function redis() {
  const state = { down: false, sent: [] as AuthChange[], tries: 0 };
  const send = async (change: AuthChange) => {
    state.tries += 1;
    if (state.down) throw new Error('The client is closed');
    state.sent.push(change);
  };
  return { state, send };
}

describe('auth changes Redis did not take', () => {
  it('When Redis takes a change, Then it is sent once and nothing waits', async () => {
    const { state, send } = redis();
    const republisher = createRepublisher(send, 10_000, quiet);
    await republisher.publish({ kind: 'token', tokenId: 1 });
    expect(state.sent).to.deep.equal([{ kind: 'token', tokenId: 1 }]);
    expect(republisher.waiting()).to.equal(0);
    republisher.close();
  });

  it('When Redis is down at the change and back later, Then the changes go out when it answers, in the order they were made', async () => {
    const { state, send } = redis();
    const republisher = createRepublisher(send, 10_000, quiet);
    state.down = true;
    await republisher.publish({ kind: 'token', tokenId: 1 });
    // Made while the first waits: queued behind it, not sent ahead of it even though Redis is back.
    state.down = false;
    await republisher.publish({ kind: 'user', userId: 2 });
    expect(state.sent).to.deep.equal([]);
    expect(republisher.waiting()).to.equal(2);
    await sleep(REPUBLISH_EVERY_MS * 2);
    expect(state.sent).to.deep.equal([{ kind: 'token', tokenId: 1 }, { kind: 'user', userId: 2 }]);
    expect(republisher.waiting()).to.equal(0);
    republisher.close();
  });

  it('When Redis stays down for several rounds, Then each round tries again until it answers', async () => {
    const { state, send } = redis();
    const republisher = createRepublisher(send, 10_000, quiet);
    state.down = true;
    await republisher.publish({ kind: 'company', companyId: 3 });
    await sleep(REPUBLISH_EVERY_MS * 3.5);
    expect(state.tries).to.be.at.least(3);
    state.down = false;
    await sleep(REPUBLISH_EVERY_MS * 1.5);
    expect(state.sent).to.deep.equal([{ kind: 'company', companyId: 3 }]);
    republisher.close();
  });

  it('When the TTL passes before Redis answers, Then the change is dropped unsent (no cache still holds what it makes stale)', async () => {
    const { state, send } = redis();
    let clock = 0;
    const republisher = createRepublisher(send, 1000, quiet, () => clock);
    state.down = true;
    await republisher.publish({ kind: 'token', tokenId: 4 });
    clock = 1000;
    state.down = false;
    await sleep(REPUBLISH_EVERY_MS * 1.5);
    expect(state.sent).to.deep.equal([]);
    expect(republisher.waiting()).to.equal(0);
    republisher.close();
  });
});
