/**
 * GET /docs: the API reference (Scalar: try-it and code samples) with the guide's chapters, as one
 * HTML page that works offline. Scalar's standalone bundle (3.5 MB) is read from node_modules and
 * inlined with the document when a browser first asks for the page, not at start: an API server
 * that never serves it never pays for it. Its try-it sends requests to this server (the document's
 * `servers`: APP_URL), through no proxy; fonts, telemetry and the links to Scalar's services are off.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { servedDocument, type ServedDocument } from './discovery.service.js';
import { guideChapters, type Chapter } from './guide.js';

/** The reference's anchor of a heading of the description (the guide's chapters are such headings). */
const HEADING_ANCHOR_PREFIX = 'description/';

/** The slug Scalar gives a heading's text (github-slugger's rule: lower case, punctuation dropped, spaces to -). */
export function headingSlug(title: string): string {
  return title.toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

/**
 * The anchors of the headings of one markdown text, in its order, as Scalar's slugger gives them:
 * a repeated slug gets -1, -2, ... (the description's "Errors" section comes before the chapter
 * "Errors"). Lines inside fenced code are not headings.
 */
class HeadingSlugger {
  private readonly seen = new Map<string, number>();

  slug(text: string): string {
    const base = headingSlug(text);
    let slug = base;
    while (this.seen.has(slug)) {
      const count = this.seen.get(base)! + 1;
      this.seen.set(base, count);
      slug = `${base}-${count}`;
    }
    this.seen.set(slug, 0);
    return slug;
  }

  /** Slugs every heading of `markdown`; answers them in order. */
  headings(markdown: string): string[] {
    const slugs: string[] = [];
    let fence: string | undefined;
    for (const line of markdown.split('\n')) {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]?.[0];
      if (marker) fence = fence === undefined ? marker : fence === marker ? undefined : fence;
      const heading = fence === undefined && !marker ? /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line) : null;
      if (heading) slugs.push(this.slug(heading[1]!));
    }
    return slugs;
  }
}

/** Links between chapters (`limits.md`, `../sdk.md#x`) point at the chapter's heading in the page. */
function linkChapters(chapter: Chapter, anchors: ReadonlyMap<string, string>): string {
  const here = path.posix.dirname(chapter.file);
  return chapter.body.replace(/\]\(([^)#\s]+\.md)(#[^)\s]*)?\)/g, (link, target: string) => {
    const anchor = anchors.get(path.posix.normalize(path.posix.join(here, target)));
    return anchor ? `](#${anchor})` : link;
  });
}

/**
 * The description the page shows: the document's own, under "Overview", then each chapter as a
 * first-level heading (the reference lists them in its side menu, before the operations), its
 * links to other chapters pointing at their headings. `anchors`: each chapter file's anchor.
 */
export function guideDescription(ownDescription: string, chapters: readonly Chapter[]): { description: string; anchors: Map<string, string> } {
  const overview = `# Overview\n\n${ownDescription}`.trim();
  const slugger = new HeadingSlugger();
  slugger.headings(overview);
  const anchors = new Map<string, string>();
  for (const chapter of chapters) {
    anchors.set(chapter.file, HEADING_ANCHOR_PREFIX + slugger.slug(chapter.title));
    slugger.headings(chapter.body);
  }
  const description = [overview, ...chapters.map((chapter) => `# ${chapter.title}\n\n${linkChapters(chapter, anchors)}`)].join('\n\n');
  return { description, anchors };
}

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
 * that reaches a service of Scalar's (fonts, telemetry, the request proxy, "open in client", the
 * share toolbar), and anchors of the guide's headings that linkChapters can compute.
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
