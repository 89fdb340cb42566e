/**
 * What list commands print: a plain-text table (a header and rows, columns padded to their widest
 * cell), or with --json one line holding the records as a JSON array, for scripts.
 */
import type { Out } from './command.js';

export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

/** The --json option of every list command. */
export const jsonOption = { kind: 'flag', help: 'print the list as one JSON array (nothing else on stdout)' } as const;

/** Prints `records` as JSON when `json`, else runs `asText` (the table and its lines around it). */
export function printList<T>(out: Out, json: boolean, records: readonly T[], asText: () => void): void {
  if (json) out(JSON.stringify(records));
  else asText();
}
