/**
 * Bundles openapi/openapi.yaml with openapi/paths/*.yaml and openapi/schemas/*.yaml into one
 * document, then derives the event schemas from the event catalogue (openapi/events.yaml,
 * derive-events.ts) and from each operation's policy what would otherwise be written by hand on
 * every operation (see derive-policy.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { derivePolicyResponses, type OpenApiDoc } from './derive-policy.js';
import { deriveEventSchemas, type EventCatalogue } from './derive-events.js';

type Fragment = Record<string, unknown>;

function readYaml(file: string): Fragment {
  const value: unknown = parse(readFileSync(file, 'utf8'));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${file}: expected a map at the top level`);
  }
  return value as Fragment;
}

function mergeFragments(dir: string, into: Fragment, what: string): void {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  for (const file of files) {
    for (const [key, value] of Object.entries(readYaml(path.join(dir, file)))) {
      if (key in into) throw new Error(`${what} ${key} is defined twice (again in ${dir}/${file})`);
      into[key] = value;
    }
  }
}

/** Orders the paths as the root's tag list orders their operations' first tag. */
function sortByTag(paths: OpenApiDoc['paths'], root: OpenApiDoc): OpenApiDoc['paths'] {
  const tagOrder = ((root.tags as Array<{ name: string }>) ?? []).map((t) => t.name);
  const rank = (item: Record<string, unknown>): number => {
    const op = Object.values(item).find((v) => typeof v === 'object' && v !== null && 'tags' in v) as
      | { tags: string[] }
      | undefined;
    const index = op ? tagOrder.indexOf(op.tags[0] ?? '') : -1;
    return index === -1 ? tagOrder.length : index;
  };
  return Object.fromEntries(Object.entries(paths).sort(([, a], [, b]) => rank(a) - rank(b)));
}

/** openapi/events.yaml: the event catalogue (derive-events.ts). */
export function readEventCatalogue(openapiDir: string): EventCatalogue {
  return readYaml(path.join(openapiDir, 'events.yaml')) as unknown as EventCatalogue;
}

export function bundleDocument(openapiDir: string): OpenApiDoc {
  const root = readYaml(path.join(openapiDir, 'openapi.yaml')) as unknown as OpenApiDoc;
  const paths: Fragment = {};
  mergeFragments(path.join(openapiDir, 'paths'), paths, 'Path');
  const schemas: Fragment = { ...(root.components.schemas ?? {}) };
  mergeFragments(path.join(openapiDir, 'schemas'), schemas, 'Schema');
  const doc: OpenApiDoc = {
    ...root,
    paths: sortByTag(paths as OpenApiDoc['paths'], root),
    components: { ...root.components, schemas },
  };
  deriveEventSchemas(doc, readEventCatalogue(openapiDir));
  derivePolicyResponses(doc);
  return doc;
}
