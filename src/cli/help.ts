/** The help text: every command with its options, or one command in full. */
import { usageOf, type OptionSpec } from './args.js';
import type { AnyCommand } from './command.js';

export const USAGE = 'npm run cli -- <command> [--option value ...]';

function optionLines(key: string, spec: OptionSpec): string {
  const required = spec.kind !== 'flag' && spec.required ? 'required: ' : '';
  return `      ${usageOf(key, spec).padEnd(34)} ${required}${spec.help}`;
}

export function commandHelp(command: AnyCommand): string[] {
  const options = Object.entries(command.options);
  return [
    `  ${command.name}`,
    `      ${command.summary}`,
    ...(options.length === 0 ? ['      (no options)'] : options.map(([key, spec]) => optionLines(key, spec))),
  ];
}

export function helpText(commands: readonly AnyCommand[]): string[] {
  return [
    `Usage: ${USAGE}`,
    'Commands that write migrate the database of DATABASE_URL first; list commands (--json for JSON) read it as it is.',
    'Exit code 0: done; 2: fix the input as the message says; 1: the database failed.',
    '',
    'Commands:',
    ...commands.flatMap((c) => [...commandHelp(c), '']),
    '  help [command]',
    '      This list, or the options of one command (also: --help, <command> --help).',
    '  --version',
    '      The name and version of this build.',
  ];
}
