/**
 * What no response body may show: credential material (a password, a password or token hash, a
 * webhook's signing secret outside the responses that create or rotate it) and internal columns
 * (a column of the database that no schema or parameter of the document names). The contract
 * check (contract-check.ts) already refuses keys a response's schema does not name; this holds
 * even where a schema would name one by mistake.
 */
import type { Knex } from 'knex';
import { readDocument } from '../../src/platform/openapi/document.js';

/** Keys that are credential material wherever they appear. */
const CREDENTIAL = /^(password|.*_hash|.*_secret|secret|remember_token|api_key)$/i;

/** Every property and parameter name the document gives anywhere. */
function documentedNames(): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (record.properties && typeof record.properties === 'object') for (const key of Object.keys(record.properties)) names.add(key);
    if (typeof record.in === 'string' && typeof record.name === 'string') names.add(record.name);
    Object.values(record).forEach(walk);
  };
  walk(readDocument());
  return names;
}

/** The columns of the database's tables that no schema or parameter of the document names. */
export async function internalColumns(db: Knex): Promise<Set<string>> {
  const sqlite = String(db.client.config.client).includes('sqlite');
  const rows: Array<{ name: string }> = sqlite
    ? await db.raw(`SELECT DISTINCT p.name AS name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`)
    : (await db.raw(`SELECT DISTINCT COLUMN_NAME AS name FROM information_schema.columns WHERE table_schema = DATABASE()`))[0];
  const documented = documentedNames();
  return new Set(rows.map((r) => r.name).filter((name) => !documented.has(name)));
}

/** Whether the response to this request may show the webhook's `secret` (its creation, or an update that rotates it). */
export function showsSecret(operationId: string, requestBody: unknown): boolean {
  if (operationId === 'createWebhook') return true;
  return operationId === 'updateWebhook' && (requestBody as { rotate_secret?: unknown } | undefined)?.rotate_secret === true;
}

/**
 * The keys of `body` (as paths, `data.items.0.password_hash`) that leak: credential material or
 * an internal column. `secret` at `data.secret` passes when `secretAllowed`. The keys of field
 * errors (`errors: { password_hash: [...] }`, REST or in GraphQL extensions) name what the client
 * sent, not data, and are not read.
 */
export function leaks(body: unknown, internal: ReadonlySet<string>, secretAllowed = false): string[] {
  const found: string[] = [];
  const walk = (node: unknown, path: string[]): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, [...path, String(i)]));
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      const at = [...path, key];
      const allowed = secretAllowed && at.join('.') === 'data.secret';
      if (!allowed && (CREDENTIAL.test(key) || internal.has(key))) found.push(at.join('.'));
      const fieldErrors = key === 'errors' && typeof value === 'object' && value !== null && !Array.isArray(value);
      if (!fieldErrors) walk(value, at);
    }
  };
  walk(body, []);
  return found;
}
