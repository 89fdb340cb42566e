/** The discovery index of GET /api and the document served at /openapi.json, built from the document once. */
import { listOperations, readDocument, requiresAuth, type OpenApiDocument } from '../../platform/openapi/document.js';
import type { Schema } from '../../platform/openapi/schemas.js';

let index: Omit<Schema<'ApiIndex'>, 'links'> | undefined;

export function apiIndex(appUrl: string): Schema<'ApiIndex'> {
  if (!index) {
    const document = readDocument();
    index = {
      name: document.info.title,
      version: document.info.version,
      operations: listOperations(document).map((op) => ({
        method: op.method,
        path: op.path,
        operation_id: op.operationId,
        summary: op.summary,
        auth: requiresAuth(op),
      })),
    };
  }
  return {
    ...index,
    links: { openapi: `${appUrl}/openapi.json`, docs: `${appUrl}/docs`, graphql: `${appUrl}/graphql` },
  };
}

export interface ServedDocument extends OpenApiDocument {
  servers: Array<{ url: string; description: string }>;
}

/** One served document per public address (an app has one; tests build apps with others). */
const served = new Map<string, ServedDocument>();

/**
 * The document as GET /openapi.json and /docs serve it: the bundled document (whose `servers` is
 * the relative `/` the request validator reads) with `servers` naming the public address
 * (APP_URL), so a generator run on the downloaded file knows where to send requests. Built once
 * per address; the rest of the document is shared with the bundled one, not copied.
 */
export function servedDocument(appUrl: string): ServedDocument {
  let document = served.get(appUrl);
  if (!document) {
    document = { ...readDocument(), servers: [{ url: appUrl, description: 'This server (its public address, APP_URL).' }] };
    served.set(appUrl, document);
  }
  return document;
}
