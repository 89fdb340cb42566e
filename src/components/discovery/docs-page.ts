/**
 * GET /docs: the API reference as one HTML page that works offline. Redoc's standalone bundle is
 * read from node_modules and inlined with the document, so the page makes no request at all.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { servedDocument } from './discovery.service.js';

const pages = new Map<string, string>();
const REDOC_REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** JSON or script text that is safe inside a <script> element. */
function scriptSafe(text: string): string {
  return text.replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function docsPage(appUrl: string): string {
  let page = pages.get(appUrl);
  if (page) return page;
  const require = createRequire(import.meta.url);
  const redoc = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8')
    .replace(/<\/script/gi, '<\\/script')
    // The attribution logo is the bundle's one remote resource; an empty image keeps the page offline.
    .replace(REDOC_REMOTE_LOGO, 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E');
  const document = servedDocument(appUrl);
  page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${document.info.title} ${document.info.version}</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<div id="redoc"></div>
<script>${redoc}</script>
<script>
Redoc.init(${scriptSafe(JSON.stringify(document))}, {
  hideDownloadButton: false,
  expandResponses: '200,201',
  theme: { typography: { fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif', headings: { fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif' } } }
}, document.getElementById('redoc'));
</script>
</body>
</html>
`;
  pages.set(appUrl, page);
  return page;
}
