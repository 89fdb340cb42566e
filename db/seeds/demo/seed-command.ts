/** `seed-demo`: the demo data of `make run` (once; the database is migrated first), and its logins. */
import { defineCommand } from '../../../src/cli/command.js';
import { DEMO_LOGINS, DEMO_PASSWORD, seedDemo } from './demo.js';

export const seedDemoCommand = defineCommand({
  name: 'seed-demo',
  summary: 'Seed the demo data (a provider, two clients, users, articles, documents) once, and print the demo logins.',
  options: {},
  async run(db, _o, out) {
    const seeded = await seedDemo(db);
    out(seeded ? 'Demo data seeded.' : 'Demo data already present.');
    out(`Demo logins (password "${DEMO_PASSWORD}"):`);
    for (const login of DEMO_LOGINS) out(`  ${login.email.padEnd(26)} ${login.what}`);
  },
});
