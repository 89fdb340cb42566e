/** GET /api, GET /openapi.json and GET /docs (the last two with ETags and compressed once: static-body.ts). */
import type { HandlerMap } from '../../platform/openapi/handler-types.js';
import { apiIndex, servedDocument } from './discovery.service.js';
import { PAGE_CONTENT_SECURITY_POLICY } from '../../platform/http/security-headers.js';
import { docsPage } from './docs-page.js';
import { StaticBody } from '../../platform/http/static-body.js';

/** The document and the reference page of each public address, made once with their ETags. */
const bodies = new Map<string, StaticBody>();

function staticBody(key: string, make: () => StaticBody): StaticBody {
  let body = bodies.get(key);
  if (!body) bodies.set(key, (body = make()));
  return body;
}

export const discoveryHandlers = {
  getApiIndex: async ({ deps }) => ({ status: 200, body: apiIndex(deps.config.appUrl) }),

  getOpenApiDocument: async ({ deps }) => ({
    status: 200,
    body: staticBody(`openapi:${deps.config.appUrl}`, () => new StaticBody(JSON.stringify(servedDocument(deps.config.appUrl)), 'application/json; charset=utf-8')),
  }),

  getDocs: async ({ deps }) => ({
    status: 200,
    body: staticBody(`docs:${deps.config.appUrl}`, () => new StaticBody(docsPage(deps.config.appUrl), 'text/html; charset=utf-8')),
    // The page loads nothing from anywhere, and its try-it talks only to this server.
    headers: { 'Content-Security-Policy': PAGE_CONTENT_SECURITY_POLICY },
  }),
} satisfies HandlerMap;
