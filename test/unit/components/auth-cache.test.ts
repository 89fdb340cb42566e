/**
 * The auth cache on its own (auth.cache.ts), with counting lookups instead of a database: what a
 * change forgets, what it leaves, how long an entry is trusted while changes made elsewhere cannot
 * reach it, that a lookup racing a change is not kept, and that rejections are remembered apart.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createAuthCache, MAX_ENTRIES, SETTLE_MS, UNFOLLOWED_TRUST_MS } from '../../../src/components/auth/auth.cache.js';
import { decodeAuthChange, encodeAuthChange } from '../../../src/components/auth/auth-change.js';
import type { Access, AuthCache, Principal } from '../../../src/kernel/identity.js';

const db = {} as Knex;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Past SETTLE_MS by a margin: a timer may fire a millisecond before Date.now() has moved on by its delay. */
const SETTLED_MS = SETTLE_MS + 50;

function principalOf(token: string): Principal {
  const [userId, tokenId] = token.split('-').map(Number);
  return { kind: 'user', tokenId: tokenId!, user: { id: userId!, name: 'u', email: 'u@example.test', isSuperAdmin: false, primaryCompanyId: 1 } };
}

function accessTo(companyId: number): Access {
  return {
    scope: { kind: 'company', companyId, companyName: 'c', companyType: 'client', providerId: 1, clientIds: [companyId] },
    role: 'operator',
    activeModules: new Set(['api']),
  };
}

/** A cache whose lookups are counted; tokens are "<userId>-<tokenId>". */
function counted(ttlSeconds = 10) {
  const lookups = { verify: 0, resolve: 0 };
  let gate: Promise<void> | undefined;
  const cache: AuthCache = createAuthCache({
    ttlSeconds,
    verify: async (_db, token) => {
      lookups.verify++;
      await gate;
      return principalOf(token);
    },
    resolve: async (_db, _principal, companyId) => {
      lookups.resolve++;
      return accessTo(companyId ?? 1);
    },
  });
  const use = async (token: string, companyId = 1) => cache.resolveAccess(db, (await cache.verifyBearer(db, token))!, companyId);
  return { cache, lookups, use, hold: (until: Promise<void>) => (gate = until) };
}

describe('Auth cache', () => {
  it('When a token, a user or a company changes, Then only the entries it makes stale are looked up again', async () => {
    const { cache, lookups, use } = counted();
    for (const [token, company] of [['1-11', 5], ['1-12', 6], ['2-21', 5], ['3-31', 7]] as const) await use(token, company);
    expect(lookups).to.deep.equal({ verify: 4, resolve: 4 });
    const again = async () => {
      const before = { ...lookups };
      for (const [token, company] of [['1-11', 5], ['1-12', 6], ['2-21', 5], ['3-31', 7]] as const) await use(token, company);
      return { verify: lookups.verify - before.verify, resolve: lookups.resolve - before.resolve };
    };
    await sleep(SETTLED_MS); // entries looked up again after a change are kept only once it settled
    cache.forget({ kind: 'token', tokenId: 11 });
    expect(await again()).to.deep.equal({ verify: 1, resolve: 1 });
    await sleep(SETTLED_MS);
    await again();
    cache.forget({ kind: 'user', userId: 1 });
    expect(await again()).to.deep.equal({ verify: 2, resolve: 2 });
    await sleep(SETTLED_MS);
    await again();
    cache.forget({ kind: 'company', companyId: 5 });
    expect(await again()).to.deep.equal({ verify: 0, resolve: 2 });
    await sleep(SETTLED_MS);
    await again();
    cache.forget({ kind: 'all' });
    expect(await again()).to.deep.equal({ verify: 4, resolve: 4 });
  });

  it('When a change arrives, Then lookups within SETTLE_MS of it are not kept (a replica may still answer the old rows), and are kept after', async () => {
    const { cache, lookups, use } = counted();
    cache.forget({ kind: 'token', tokenId: 99 });
    await use('1-11');
    await use('1-11');
    expect(lookups.verify).to.equal(2);
    await sleep(SETTLED_MS);
    await use('1-11');
    await use('1-11');
    expect(lookups.verify).to.equal(3);
  });

  it('When a lookup started before a change and ends after it, Then its answer is not kept', async function () {
    this.timeout(10_000);
    const { cache, lookups, use, hold } = counted();
    let open!: () => void;
    hold(new Promise<void>((resolve) => (open = resolve)));
    const racing = use('1-11');
    await sleep(SETTLED_MS);
    cache.forget({ kind: 'token', tokenId: 11 });
    await sleep(SETTLED_MS);
    open();
    await racing;
    hold(Promise.resolve());
    await use('1-11');
    expect(lookups.verify).to.equal(2);
  });

  it(`When changes made elsewhere cannot reach it (not following), Then an entry is trusted for ${UNFOLLOWED_TRUST_MS} ms, not the TTL`, async () => {
    const { cache, lookups, use } = counted();
    cache.setFollowing(false);
    await use('1-11');
    await use('1-11');
    expect(lookups.verify).to.equal(1);
    await sleep(UNFOLLOWED_TRUST_MS + 50);
    await use('1-11');
    expect(lookups.verify).to.equal(2);
  });

  it('When it follows again, Then it forgets everything (changes may have been missed meanwhile)', async () => {
    const { cache, lookups, use } = counted();
    cache.setFollowing(false);
    await use('1-11');
    cache.setFollowing(true);
    await use('1-11');
    expect(lookups.verify).to.equal(2);
  });

  it('When a token is rejected, Then it is refused again without a lookup until the TTL ends', async () => {
    let lookups = 0;
    const cache = createAuthCache({ ttlSeconds: 1, verify: async () => void lookups++, resolve: async () => accessTo(1) });
    expect(await cache.verifyBearer(db, 'invented')).to.equal(undefined);
    expect(await cache.verifyBearer(db, 'invented')).to.equal(undefined);
    expect(lookups).to.equal(1);
    await sleep(1050);
    expect(await cache.verifyBearer(db, 'invented')).to.equal(undefined);
    expect(lookups).to.equal(2);
  });

  it(`When ${MAX_ENTRIES + 1} invented tokens are rejected, Then a working token stays cached (rejections have a bound of their own)`, async () => {
    const lookups = new Map<string, number>();
    const cache = createAuthCache({
      ttlSeconds: 10,
      verify: async (_db, token) => {
        lookups.set(token, (lookups.get(token) ?? 0) + 1);
        return token.startsWith('x') ? undefined : principalOf(token);
      },
      resolve: async () => accessTo(1),
    });
    await cache.verifyBearer(db, '1-11');
    for (let i = 0; i <= MAX_ENTRIES; i++) await cache.verifyBearer(db, `x${i}`);
    expect(await cache.verifyBearer(db, '1-11')).to.deep.equal(principalOf('1-11'));
    expect(lookups.get('1-11')).to.equal(1);
    // The oldest rejection made room for the newest: it is looked up again, the newest is not.
    await cache.verifyBearer(db, 'x0');
    await cache.verifyBearer(db, `x${MAX_ENTRIES}`);
    expect([lookups.get('x0'), lookups.get(`x${MAX_ENTRIES}`)]).to.deep.equal([2, 1]);
  });

  it('When announce is called, Then it forgets here and publishes the change', async () => {
    const published: unknown[] = [];
    const cache = createAuthCache({ ttlSeconds: 10, verify: async (_db, t) => principalOf(t), resolve: async () => accessTo(1), publish: async (c) => void published.push(c) });
    await cache.announce({ kind: 'user', userId: 4 });
    expect(published).to.deep.equal([{ kind: 'user', userId: 4 }]);
  });

  it('When a change is encoded and decoded, Then it is the same; a message it does not understand is read as "all"', () => {
    for (const change of [{ kind: 'token', tokenId: 3 }, { kind: 'user', userId: 4 }, { kind: 'company', companyId: 5 }, { kind: 'all' }] as const) {
      expect(decodeAuthChange(encodeAuthChange(change))).to.deep.equal(change);
    }
    for (const message of ['', 'nonsense', '{"kind":"token"}', '{"kind":"token","tokenId":"3"}', '{"kind":"role","roleId":1}', 'null']) {
      expect(decodeAuthChange(message), message).to.deep.equal({ kind: 'all' });
    }
  });
});
