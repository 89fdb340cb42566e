/** Every command of the operator CLI, in the order a provider uses them (and `help` lists them). */
import type { AnyCommand } from '../command.js';
import { accountCommands } from './accounts.js';
import { companyCommands } from './companies.js';
import { moduleCommands } from './modules.js';
import { referenceCommands } from './reference.js';
import { tokenCommands } from './tokens.js';
import { userCommands } from './users.js';
import { webhookCommands } from './webhooks.js';
import { databaseCommands } from './database.js';

export const COMMANDS: readonly AnyCommand[] = [
  ...databaseCommands,
  ...companyCommands,
  ...referenceCommands,
  ...userCommands,
  ...moduleCommands,
  ...tokenCommands,
  ...accountCommands,
  ...webhookCommands,
];
