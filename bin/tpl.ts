#!/usr/bin/env node
/**
 * `tpl`: the operator CLI's process entry. It lives outside src/ because it also offers
 * `seed-demo`, the demo data of db/seeds, which the service itself (src/) never imports.
 * From source: `npm run cli -- <command>`; built: `node dist/bin/tpl.js <command>` (no dev
 * dependency needed). `help` lists the commands.
 */
import { runCliProcess } from '../src/cli/process.js';
import { seedDemoCommand } from '../db/seeds/demo/seed-command.js';

await runCliProcess([seedDemoCommand]);
