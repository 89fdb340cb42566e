/** Root hooks of every run: the database is closed (and a MariaDB test database dropped) at the end. */
import { closeHarness } from './harness.js';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await closeHarness();
  },
};
