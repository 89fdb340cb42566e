/** The discovery index of GET /api, built from the document once. */
import { listOperations, readDocument, requiresAuth } from '../../platform/openapi/document.js';
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
