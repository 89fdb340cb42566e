/** GET /api, GET /openapi.json and GET /docs. */
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { apiIndex, servedDocument } from './discovery.service.js';
import { PAGE_CONTENT_SECURITY_POLICY } from '../../platform/http/security-headers.js';
import { docsPage } from './docs-page.js';

export const discoveryHandlers = {
  getApiIndex: async ({ deps }) => ({ status: 200, body: apiIndex(deps.config.appUrl) }),

  getOpenApiDocument: async ({ deps }) => ({
    status: 200,
    body: servedDocument(deps.config.appUrl) as unknown as { openapi: string; info: Record<string, never>; paths: Record<string, never> },
  }),

  getDocs: async ({ deps }) => ({
    status: 200,
    body: docsPage(deps.config.appUrl),
    contentType: 'text/html',
    // The page loads nothing from anywhere, and its try-it talks only to this server.
    headers: { 'Content-Security-Policy': PAGE_CONTENT_SECURITY_POLICY },
  }),
} satisfies HandlerMap;
