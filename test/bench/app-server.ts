/**
 * The API as main.ts builds it, on the bundled document or on one padded with BENCH_PADDING extra
 * operations (each a copy of GET /api/articles on a path of its own, answering 501): the padded
 * comparison runs both through this same entry, so only the document differs.
 */
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDb } from '../../src/platform/db/database.js';
import { createHttpServer } from '../../src/platform/http/http-server.js';
import { createLogger } from '../../src/platform/logger.js';
import { createMetrics } from '../../src/platform/metrics.js';
import { readDocument, type OpenApiDocument, type OperationId } from '../../src/platform/openapi/document.js';

/** The bundled document with `count` more operations, and their operationIds. */
export function paddedDocument(count: number): { document: OpenApiDocument; added: OperationId[] } {
  const document = structuredClone(readDocument());
  const template = document.paths['/api/articles']?.get as Record<string, unknown>;
  const added: OperationId[] = [];
  for (let i = 0; i < count; i++) {
    const operationId = `benchPadding${i}`;
    document.paths[`/api/padding-${i}/items/{id}`] = {
      get: { ...structuredClone(template), operationId, parameters: [...(template.parameters as unknown[]), { $ref: '#/components/parameters/Id' }] },
    };
    added.push(operationId as OperationId);
  }
  return { document, added };
}

const config = loadConfig();
const padding = Number(process.env.BENCH_PADDING ?? 0);
const source = padding > 0 ? (({ document, added }) => ({ document, notImplemented: added }))(paddedDocument(padding)) : undefined;
const logger = createLogger(config);
const db = createDb(config.databaseUrl);
const { express, contract } = await createApp({ config, db, logger, metrics: createMetrics() }, source);
createHttpServer(express).listen(config.port, '127.0.0.1', () => console.log(`app listening on ${config.port} with ${contract.operations.length} operations`));
// Exit on a signal, so that `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
