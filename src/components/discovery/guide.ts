/**
 * The integrator guide's chapters, for the reference at /docs: the markdown files that
 * docs/guide.md lists under "## Chapters" (the one place that orders them), then any chapter in
 * docs/guide/ it does not list, by file name. A new chapter appears by adding its file.
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
