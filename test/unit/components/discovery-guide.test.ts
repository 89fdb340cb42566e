/**
 * The guide's chapters in the reference at /docs: which files, in which order (docs/guide.md's
 * "## Chapters" list, then unlisted chapters of docs/guide/), and how they join the description
 * (each a first-level heading; links between chapters become the page's anchors, numbered like
 * Scalar's slugger numbers a repeated heading).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { guideChapters, guideDescription, headingSlug, listedChapterFiles } from '../../../src/components/discovery/guide.js';
import { buildSchema } from 'graphql';
import { listOperations, readDocument, resolvedSchema } from '../../../src/platform/openapi/document.js';

function docsFolder(index: string, chapters: Record<string, string>): string {
  const docs = mkdtempSync(path.join(tmpdir(), 'tpl-guide-'));
  mkdirSync(path.join(docs, 'guide'));
  writeFileSync(path.join(docs, 'guide.md'), index);
  for (const [file, text] of Object.entries(chapters)) writeFileSync(path.join(docs, file), text);
  return docs;
}

describe('The guide in the reference', () => {
  it("When docs/guide.md is read, Then it lists every chapter of docs/guide/ (and README's link to it still leads to them)", () => {
    const listed = listedChapterFiles('docs');
    const files = readdirSync('docs/guide').filter((f) => f.endsWith('.md')).map((f) => `guide/${f}`);
    expect(listed).to.include.members(files);
    expect(listed.slice(0, 1)).to.deep.equal(['guide/quickstart.md']);
    for (const chapter of guideChapters()) expect(chapter.body.length, chapter.file).to.be.greaterThan(100);
  });

  it('When a chapter file is added and not listed, Then it comes after the listed ones, by file name', () => {
    const docs = docsFolder('# Guide\n\n## Chapters\n\n1. [B](guide/b.md)\n2. [Client](sdk.md)\n\n## Other\n\n1. [Not a chapter](guide/x.md)\n', {
      'guide/b.md': '# Bee\n\nBody of b.\n',
      'guide/lots.md': '# Lots\n\nBatches.\n',
      'guide/a.md': '# Aye\n\nBody of a.\n',
      'sdk.md': '# Generating a client\n\nHow.\n',
    });
    expect(guideChapters(docs).map((c) => [c.file, c.title, c.body])).to.deep.equal([
      ['guide/b.md', 'Bee', 'Body of b.'],
      ['sdk.md', 'Generating a client', 'How.'],
      ['guide/a.md', 'Aye', 'Body of a.'],
      ['guide/lots.md', 'Lots', 'Batches.'],
    ]);
  });

  it('When a chapter has no "# " title, Then reading the guide fails naming the file', () => {
    const docs = docsFolder('## Chapters\n\n1. [A](guide/a.md)\n', { 'guide/a.md': 'No title here.\n' });
    expect(() => guideChapters(docs)).to.throw('docs/guide/a.md must start with a "# " heading');
  });

  it('When chapters join the description, Then each is a first-level heading after the Overview, and links between chapters point at their anchors, numbered like repeated headings', () => {
    const chapters = [
      { file: 'guide/errors.md', title: 'Errors', body: 'See [Rate limits](limits.md#x) and [the client](../sdk.md).\n\n```sh\n# Errors (a comment, not a heading)\n```' },
      { file: 'guide/limits.md', title: 'Rate limits', body: '## Errors\n\nBack to [Errors](errors.md), on [GitHub](https://example.com/a.md).' },
      { file: 'sdk.md', title: 'Generating a client', body: 'Text.' },
    ];
    const { description, anchors } = guideDescription('## Errors\n\nEvery error body.\n\n## Limits\n', chapters);
    expect(Object.fromEntries(anchors)).to.deep.equal({
      'guide/errors.md': 'description/errors-1',
      'guide/limits.md': 'description/rate-limits',
      'sdk.md': 'description/generating-a-client',
    });
    expect(description).to.equal(
      '# Overview\n\n## Errors\n\nEvery error body.\n\n## Limits\n\n' +
        '# Errors\n\nSee [Rate limits](#description/rate-limits) and [the client](#description/generating-a-client).\n\n```sh\n# Errors (a comment, not a heading)\n```\n\n' +
        '# Rate limits\n\n## Errors\n\nBack to [Errors](#description/errors-1), on [GitHub](https://example.com/a.md).\n\n' +
        '# Generating a client\n\nText.',
    );
  });

  it('When a title has punctuation, Then its slug drops it as Scalar does', () => {
    expect(headingSlug('Creating things exactly once: Idempotency-Key')).to.equal('creating-things-exactly-once-idempotency-key');
    expect(headingSlug('Quickstart: from a token to stock')).to.equal('quickstart-from-a-token-to-stock');
  });
});

describe('The guide against the document', () => {
  it("When the sync chapter states the lists' per_page, Then every page list whose default or maximum is not 25 and 100 is named there with its own", () => {
    const stated = readFileSync('docs/guide/sync.md', 'utf8').split('\n\n').find((p) => p.includes('`per_page` (default 25, at most 100'));
    expect(stated, 'the paragraph stating per_page').to.be.a('string');
    const text = stated!.replace(/\s+/g, ' ');
    for (const op of listOperations(readDocument()).filter((o) => o.method === 'GET' && o.parameters.some((p) => p.name === 'page'))) {
      const perPage = resolvedSchema(op.parameters.find((p) => p.name === 'per_page')?.schema as { $ref?: string; default?: number; maximum?: number } | undefined);
      if (perPage?.default !== 25) expect(text, op.path).to.match(new RegExp(`\`${op.path}\` defaults to ${perPage?.default}\\b`));
      if (perPage?.maximum !== 100) expect(text, op.path).to.match(new RegExp(`\`${op.path}\`[^;]* take up to ${perPage?.maximum}\\b`));
    }
  });

  it('When a list of documents pages by offset, Then its description says pages move and names the feed and a GraphQL keyset list that exists, and the sync chapter names that list too', () => {
    const graphql = buildSchema(readFileSync('src/generated/schema.generated.graphql', 'utf8')).getQueryType()!.getFields();
    const sync = readFileSync('docs/guide/sync.md', 'utf8').replace(/\s+/g, ' ');
    const lists = listOperations(readDocument()).filter((o) => o.method === 'GET' && ['page', 'updated_since'].every((n) => o.parameters.some((p) => p.name === n)));
    expect(lists.map((o) => o.path)).to.include.members(['/api/purchase-orders', '/api/receptions', '/api/sales-orders', '/api/shipments', '/api/returns', '/api/stock/adjustments', '/api/stock/transfers']);
    for (const op of lists.filter((o) => o.path !== '/api/stock')) {
      const description = (op.raw as { description?: string }).description?.replace(/\s+/g, ' ') ?? '';
      expect(description, op.path).to.include('Pages are offsets').and.include('`GET /api/events`').and.include('`updated_since` alone');
      const keyset = /GraphQL's `(\w+)\(after:\)`/.exec(description)?.[1];
      expect(keyset, op.path).to.be.a('string');
      expect(graphql[keyset!]?.args.map((a) => a.name), keyset).to.include.members(['after', 'updated_since']);
      expect(sync, keyset).to.include(`\`${keyset}\``);
    }
    expect(sync).to.include('## Pages move while you read them').and.not.include('Follow `links.next` until it is `null`');
  });
});
