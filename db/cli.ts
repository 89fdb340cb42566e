/**
 * Database commands: `migrate` (latest), `rollback` (all), `seed-demo` (once; prints the logins).
 * Usage: tsx db/cli.ts <command>   (DATABASE_URL as for the server)
 */
import { loadConfigOrExit } from '../src/platform/startup.js';
import { createDb } from '../src/platform/db/database.js';
import { migrateLatest, rollbackAll } from './migrations/index.js';
import { DEMO_LOGINS, DEMO_PASSWORD, seedDemo } from './seeds/demo/demo.js';

const commands: Record<string, (db: ReturnType<typeof createDb>) => Promise<void>> = {
  migrate: async (db) => {
    await migrateLatest(db);
    console.log('Migrations are up to date.');
  },
  rollback: async (db) => {
    await rollbackAll(db);
    console.log('Every migration is rolled back.');
  },
  'seed-demo': async (db) => {
    await migrateLatest(db);
    const seeded = await seedDemo(db);
    console.log(seeded ? 'Demo data seeded.' : 'Demo data already present.');
    console.log(`Demo logins (password "${DEMO_PASSWORD}"):`);
    for (const login of DEMO_LOGINS) console.log(`  ${login.email.padEnd(26)} ${login.what}`);
  },
};

const name = process.argv[2] ?? '';
const command = commands[name];
if (!command) {
  console.error(`Usage: tsx db/cli.ts <${Object.keys(commands).join('|')}>`);
  process.exit(2);
}
// Migrations may alter large tables: no statement time bound.
const db = createDb(loadConfigOrExit().databaseUrl, { statementTimeoutMs: 0 });
try {
  await command(db);
} finally {
  await db.destroy();
}
