/**
 * Root hooks of every run: after each test the stock ledger must agree with its balances (a
 * broken ledger fails the run where it broke); at the end the database is closed (and a MariaDB
 * test database dropped).
 */
import { closeHarness, currentDatabase } from './harness.js';
import { ledgerMismatches } from '../fixtures/probes.js';

export const mochaHooks = {
  async afterEach(): Promise<void> {
    const db = currentDatabase();
    if (!db) return;
    const mismatches = await ledgerMismatches(db);
    if (mismatches.length > 0) throw new Error(`The stock ledger disagrees with the balances:\n  ${mismatches.join('\n  ')}`);
  },
  async afterAll(): Promise<void> {
    await closeHarness();
  },
};
