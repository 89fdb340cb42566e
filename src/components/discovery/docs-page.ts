/**
 * GET /docs: the API reference (Scalar: try-it and code samples) with the guide's chapters, as one
 * HTML page that works offline. Scalar's standalone bundle (3.5 MB) is read from node_modules and
 * inlined with the document when a browser first asks for the page, not at start: an API server
 * that never serves it never pays for it. Its try-it sends requests to this server (the document's
 * `servers`: APP_URL), through no proxy; fonts, telemetry and the links to Scalar's services are off.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { servedDocument, type ServedDocument } from './discovery.service.js';
import { guideChapters, guideDescription, HEADING_ANCHOR_PREFIX, type Chapter } from './guide.js';

/** The document as the page shows it: the served one (servers: APP_URL) with the guide in its description. */
export function portalDocument(appUrl: string, chapters: readonly Chapter[] = guideChapters()): ServedDocument {
  const document = servedDocument(appUrl);
  return { ...document, info: { ...document.info, description: guideDescription(document.info.description ?? '', chapters).description } };
}

/** JSON or script text that is safe inside a <script> element. */
function scriptSafe(text: string): string {
  return text.replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

let bundle: string | undefined;

/** Scalar's standalone bundle, read once (on the first page). */
function scalarBundle(): string {
  bundle ??= readFileSync(createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js'), 'utf8').replace(/<\/script/gi, '<\\/script');
  return bundle;
}

/**
 * Scalar's configuration: the document inline (no fetch), curl first among the samples, nothing
 * that reaches a service of Scalar's (fonts, telemetry, the request proxy, the AI agent, "open in
 * client", the share toolbar), and the guide's heading anchors that guide.ts computes.
 */
function scalarConfiguration(document: ServedDocument): string {
  return `{
  content: ${scriptSafe(JSON.stringify(document))},
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  hideClientButton: true,
  showDeveloperTools: 'never',
  documentDownloadType: 'json',
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
  generateHeadingSlug: (heading) => ${JSON.stringify(HEADING_ANCHOR_PREFIX)} + heading.slug,
  customCss: 'body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }',
}`;
}

const pages = new Map<string, string>();

export function docsPage(appUrl: string): string {
  let page = pages.get(appUrl);
  if (page) return page;
  const document = portalDocument(appUrl);
  page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${document.info.title} ${document.info.version}</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="app"></div>
<script>${scalarBundle()}</script>
<script>
Scalar.createApiReference('#app', ${scalarConfiguration(document)});
</script>
</body>
</html>
`;
  pages.set(appUrl, page);
  return page;
}
