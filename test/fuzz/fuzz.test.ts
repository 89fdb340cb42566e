/**
 * Schema-driven fuzzing of every operation of the document (fast-check, seeded): valid requests
 * generated from the operation's schemas and mutated ones (arbitraries.ts), sent with the
 * operation's credentials through `api()`, so every response must be a documented status with a
 * body that matches the document; no response may be a 5xx or show a credential or an internal
 * column (test/helpers/leaks.ts).
 *
 * Budget: FUZZ_SECONDS (default 40, the bounded run of `make test`; `make fuzz` runs 600) is
 * shared by the operations: each runs until it has used its share of the time left, so the time
 * a quick operation leaves goes to the slower ones. FUZZ_RUNS caps the runs of each operation
 * instead (the same seed then sends the same requests, whatever the machine's speed).
 * FUZZ_SEED (default 20261122) fixes the seed; a failure prints how to reproduce it: FUZZ_OP runs
 * one operation (by operationId) and FUZZ_PATH replays fast-check's counterexample path.
 * FUZZ_STATS=1 prints, per operation, the runs and the statuses they got.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { isolatedHarness } from '../helpers/harness.js';
import { ledgerMismatches } from '../fixtures/probes.js';
import { operations } from '../helpers/operations.js';
import { requestArbitrary } from './arbitraries.js';
import { fuzzWorld, send, type FuzzWorld } from './support.js';

const env = process.env;
const BASE_SEED = Number(env.FUZZ_SEED ?? 20261122);
const SECONDS = Number(env.FUZZ_SECONDS ?? 40);
const MAX_RUNS = env.FUZZ_RUNS ? Number(env.FUZZ_RUNS) : Number.MAX_SAFE_INTEGER;
const MIN_MS = 200;
/** Deletes run last, so the resources they remove are there for the operations before them. */
const selected = operations
  .filter((op) => !env.FUZZ_OP || op.operationId === env.FUZZ_OP)
  .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
/** Time left is shared by the operations left. */
let deadline = 0;
const timeLimit = (left: number): number => Math.max(MIN_MS, (deadline - Date.now()) / left);
const stats: string[] = [];

/** A stable seed per operation, so adding an operation leaves the others' runs as they were. */
function seedOf(operationId: string, base = BASE_SEED): number {
  let hash = base | 0;
  for (const c of operationId) hash = Math.imul(hash ^ c.charCodeAt(0), 16777619);
  return hash | 0;
}

describe(`Fuzz: every operation (FUZZ_SEED=${BASE_SEED}, ${SECONDS} s)`, function () {
  this.timeout(SECONDS * 1000 + 120_000);
  let h: Awaited<ReturnType<typeof isolatedHarness>>;
  let fw: FuzzWorld;

  before(async () => {
    // A database of its own: what the fuzz creates (ids up to 2147483647, odd codes) stays out of other suites.
    h = await isolatedHarness();
    fw = await fuzzWorld(h);
    // fast-check builds its grapheme and email tables on first use (~0.7 s): not on an operation's time.
    fc.sample(fc.tuple(fc.string({ unit: 'grapheme' }), fc.emailAddress()), 5);
    deadline = Date.now() + SECONDS * 1000;
  });

  after(async () => {
    if (env.FUZZ_STATS) console.log(`\n  runs and statuses per operation:\n${stats.join('\n')}`);
    if (!h) return;
    // The root hook checks the shared database's ledger; this one is the fuzz's own.
    const mismatches = await ledgerMismatches(h.db);
    await h.close();
    expect(mismatches).to.deep.equal([]);
  });

  for (const [index, op] of selected.entries()) {
    const seed = seedOf(op.operationId);
    it(`When ${op.method} ${op.path} gets generated and mutated requests, Then every answer is documented, none is a 5xx and none leaks`, async () => {
      const statuses = new Map<number, number>();
      const property = fc.asyncProperty(requestArbitrary(op, fw), async (req) => {
        const res = await send(h, fw, op, req);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) throw new Error(`${op.method} ${req.path} answered ${res.status}: ${res.text.slice(0, 300)}`);
      });
      const replay = env.FUZZ_OP ? env.FUZZ_PATH : undefined;
      const timed = await fc.check(property, {
        seed,
        numRuns: MAX_RUNS,
        path: replay,
        endOnFailure: replay !== undefined,
        plugins: [fc.interruptAfterTimeLimit(timeLimit(selected.length - index))],
      });
      // A busy machine can spend an operation's share before its first request is answered (fast-check
      // then reports the interruption as a failure): the operation still gets its one run, untimed.
      const details = timed.interrupted && timed.numRuns === 0 ? ((await fc.check(property, { seed, numRuns: 1, path: replay })) as typeof timed) : timed;
      stats.push(`    ${op.operationId}: ${details.numRuns} runs; ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`);
      if (details.failed) {
        throw new Error(
          `Reproduce with FUZZ_DB=${env.TEST_DB ?? 'sqlite'} FUZZ_SEED=${BASE_SEED} FUZZ_OP=${op.operationId} FUZZ_PATH=${details.counterexamplePath ?? ''} (operation seed ${seed})\n${fc.defaultReportMessage(details)}\nError: ${(details.errorInstance as Error | undefined)?.message ?? ''}`,
        );
      }
      expect(details.numRuns, 'runs within the time budget').to.be.at.least(1);
    });
  }
});
