/**
 * The integrator guide's chapters, for the reference at /docs: the markdown files that
 * docs/guide.md lists under "## Chapters" (the one place that orders them), then any chapter in
 * docs/guide/ it does not list, by file name (a new chapter appears by adding its file); and the
 * description they make together, with the anchors the reference gives their headings.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../platform/project-root.js';

export interface Chapter {
  /** The file, relative to docs/ (`guide/quickstart.md`). */
  readonly file: string;
  /** Its `# ` heading. */
  readonly title: string;
  /** Its text after the heading. */
  readonly body: string;
}

const INDEX = 'guide.md';
const CHAPTERS = 'guide';

/** The chapter files docs/guide.md lists, in its order: the links of its "## Chapters" list. */
export function listedChapterFiles(docs: string): string[] {
  const section = readFileSync(path.join(docs, INDEX), 'utf8').split(/^## Chapters$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\d+\. \[[^\]]+\]\(([^)#\s]+\.md)\)$/gm)].map((m) => path.posix.normalize(m[1]!));
}

function readChapter(docs: string, file: string): Chapter {
  const text = readFileSync(path.join(docs, file), 'utf8');
  const heading = /^# (.+)\n/.exec(text);
  if (!heading) throw new Error(`docs/${file} must start with a "# " heading (the chapter's title)`);
  return { file, title: heading[1]!.trim(), body: text.slice(heading[0].length).trim() };
}

/** Every chapter, in the guide's order. */
export function guideChapters(docs: string = path.join(projectRoot, 'docs')): Chapter[] {
  const listed = listedChapterFiles(docs);
  const folder = path.join(docs, CHAPTERS);
  const unlisted = existsSync(folder)
    ? readdirSync(folder)
        .filter((name) => name.endsWith('.md'))
        .sort()
        .map((name) => `${CHAPTERS}/${name}`)
        .filter((file) => !listed.includes(file))
    : [];
  return [...listed, ...unlisted].map((file) => readChapter(docs, file));
}

/** The reference's anchor of a heading of the description (the guide's chapters are such headings). */
export const HEADING_ANCHOR_PREFIX = 'description/';

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
