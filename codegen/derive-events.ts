/**
 * The event catalogue (openapi/events.yaml: type -> data schema, module, description) as the
 * document's schemas and as the server's generated constants: the `WebhookEventType` and
 * `WebhookEventFilter` enums, one envelope per type (`stock.changed` -> `StockChangedEvent`:
 * `type` fixed to it, `data` its schema) and `WebhookEvent`, their `oneOf` discriminated by `type`.
 */
import type { OpenApiDoc } from './derive-policy.js';

export interface EventEntry {
  readonly data: string;
  readonly module: string;
  readonly description: string;
}
export type EventCatalogue = Readonly<Record<string, EventEntry>>;

type Json = Record<string, unknown>;
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** `purchase_order.status_changed` -> `PurchaseOrderStatusChangedEvent`. */
export function envelopeName(type: string): string {
  return `${type.split(/[._]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}Event`;
}

const EVENT_ID_DESCRIPTION =
  'The event id, the same on every retry (sent as `webhook-id`). Events of one resource with the same `timestamp` (one write) are ordered by their ids: compared as strings, the greater is the later.';

function envelope(type: string, entry: EventEntry): Json {
  return {
    type: 'object',
    description: `\`${type}\`: ${entry.description} Sent while the client's \`${entry.module}\` module is on.`,
    required: ['id', 'type', 'timestamp', 'company_id', 'data'],
    properties: {
      id: { type: 'string', description: EVENT_ID_DESCRIPTION, example: 'evt_01JD2Z6Q8C3V5N7P9R1T3W5Y7A' },
      type: { type: 'string', enum: [type] },
      timestamp: ref('Timestamp'),
      company_id: { type: 'integer', format: 'int32', description: 'The client company that owns the data.', example: 2 },
      data: ref(entry.data),
    },
  };
}

export function deriveEventSchemas(doc: OpenApiDoc, catalogue: EventCatalogue): void {
  const schemas = (doc.components.schemas ??= {}) as Json;
  const types = Object.keys(catalogue);
  const add = (name: string, schema: Json): void => {
    if (name in schemas) throw new Error(`Schema ${name} is derived from openapi/events.yaml: do not define it in openapi/schemas/`);
    schemas[name] = schema;
  };
  for (const [type, entry] of Object.entries(catalogue)) {
    if (!/^[a-z]+(_[a-z]+)*\.[a-z]+(_[a-z]+)*$/.test(type)) throw new Error(`Event type ${type}: write it resource.happened in snake_case`);
    if (!(entry.data in schemas)) throw new Error(`Event type ${type}: no schema ${entry.data}`);
  }
  add('WebhookEventType', { type: 'string', description: 'An event type of the catalogue.', enum: types, example: 'reception.created' });
  add('WebhookEventFilter', {
    type: 'string',
    description: 'An event type of the catalogue, or `*` for every event (`*` alone, never beside names).',
    enum: ['*', ...types],
    example: 'reception.created',
  });
  for (const [type, entry] of Object.entries(catalogue)) add(envelopeName(type), envelope(type, entry));
  add('WebhookEvent', {
    description:
      'An event as its webhook delivery carries it and `GET /api/events` lists it: `type` says which, and `data` is the resource of that type (`WebhookEventType` lists them).',
    oneOf: types.map((type) => ref(envelopeName(type))),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(types.map((type) => [type, `#/components/schemas/${envelopeName(type)}`])) },
  });
}

/** src/generated/events.generated.ts: the catalogue the server reads. */
export function eventsModule(catalogue: EventCatalogue): string {
  const entries = Object.entries(catalogue).map(([type, entry]) => `  '${type}': { module: '${entry.module}', data: '${entry.data}' },`);
  return [
    '/** The event catalogue of openapi/events.yaml: each event type, the module it needs, the schema of its data. */',
    'export const EVENT_CATALOGUE = {',
    ...entries,
    '} as const;',
    '',
    'export type EventType = keyof typeof EVENT_CATALOGUE;',
    '',
  ].join('\n');
}
