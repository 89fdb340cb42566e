/**
 * The docs portal in a real browser (headless Chromium, test/browser/chromium.ts): /docs renders
 * the reference offline (every tag and every guide chapter in the side menu, search finds an
 * operation, code samples, try-it answered by this server) and GraphiQL at GET /graphql opens
 * without an error and runs the articles query, and neither page makes a request off localhost.
 *
 * A request /docs's Content-Security-Policy blocks is also a console error ("violates the
 * following Content Security Policy directive"), so /docs must log no console error at all.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Page, Request, Response } from 'playwright-core';
import * as build from '../../db/seeds/builders.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { buildApp, testConfig, type Harness } from '../helpers/harness.js';
import { guideChapters, guideDescription } from '../../src/components/discovery/guide.js';
import { ensureChromium, launchChromium, type Browser } from './chromium.js';

/** The tags the issue names; the served document may have more, never fewer. */
const ISSUE_TAGS = [
  'Discovery',
  'Health',
  'Authentication',
  'Reference',
  'Articles',
  'Stock',
  'Purchase orders',
  'Receptions',
  'Sales orders',
  'Returns',
  'Webhooks',
  'Reception integration',
  'Master-data integration',
  'GraphQL',
];
const SEARCHED_OPERATION = 'Receive goods against a purchase order';
const ARTICLES_QUERY = '{ articles(limit: 5) { id article_code description } }';

interface PageLog {
  requests: string[];
  consoleErrors: string[];
  pageErrors: string[];
}

/**
 * Records every request, console error and uncaught error of a page. Requests are taken from the
 * whole browser context while the page is open (one page is open at a time), so that requests of
 * its workers and service workers count too.
 */
function record(page: Page): PageLog {
  const log: PageLog = { requests: [], consoleErrors: [], pageErrors: [] };
  const onRequest = (request: Request) => log.requests.push(request.url());
  page.context().on('request', onRequest);
  page.once('close', () => page.context().off('request', onRequest));
  page.on('websocket', (socket) => log.requests.push(socket.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') log.consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => log.pageErrors.push(error.stack ?? error.message));
  return log;
}

/** Requests to anything but the app on 127.0.0.1:<port> (blob:, data: and about: stay in the browser). */
function offLocalhost(requests: string[], port: number): string[] {
  const local = `http://127.0.0.1:${port}/`;
  return requests.filter((url) => !(url.startsWith(local) || /^(blob|data|about):/.test(url)));
}

/** Text as Monaco draws it (it draws spaces as no-break spaces). */
function editorText(text: string): string {
  return text.replace(/\u00a0/g, ' ');
}

async function screenshot(page: Page | undefined, name: string): Promise<string | undefined> {
  if (!page || page.isClosed()) return undefined;
  const file = path.join(tmpdir(), `docs-portal-${name}-${process.pid}.png`);
  await page.screenshot({ path: file, fullPage: false }).catch(() => undefined);
  return file;
}

describe('Docs portal in a browser (headless Chromium)', function () {
  let h: Harness;
  let world: World;
  let server: Server;
  let port: number;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const articleCodes: string[] = [];

  before(async function () {
    // Installing Chromium (a fresh machine) may take minutes; an installed one returns at once.
    this.timeout(10 * 60_000);
    const executable = await ensureChromium();
    // The server listens first, so that the app's public address (APP_URL: the document's servers,
    // where try-it sends requests) is the address the browser opens.
    server = createServer();
    await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1').once('listening', resolve).once('error', reject));
    port = (server.address() as AddressInfo).port;
    h = await buildApp({ config: testConfig({ APP_URL: `http://127.0.0.1:${port}` }) });
    server.on('request', h.app);
    world = await createWorld(h.app, h.db);
    articleCodes.push(world.articles.client.code);
    for (const code of [unique('ART-BRW-'), unique('ART-BRW-')]) {
      await build.insertArticle(h.db, { company_id: world.client.id, article_code: code, description: `Browser ${code}`, um3pl: 'BUC' });
      articleCodes.push(code);
    }
    browser = await launchChromium(executable);
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    const file = await screenshot(page, this.currentTest.title.replace(/\W+/g, '-').slice(0, 60));
    if (!file) return;
    writeFileSync(`${file}.html`, await page!.content().catch(() => ''));
    console.log(`      screenshot of the failed step: ${file} (its HTML: ${file}.html)`);
  });

  after(async () => {
    await browser?.close();
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  });

  describe('GET /docs', () => {
    let log: PageLog;
    let served: { tags?: Array<{ name: string }>; info: { description: string } };
    let documentTags: string[];
    const chapters = guideChapters();
    const sidebarItem = (id: string) => page!.locator(`li[data-sidebar-id="${id}"]`);
    /** The side menu's first-level entries: [anchor, label] of each that is drawn. */
    const menuEntries = () =>
      page!.$$eval('aside[role="navigation"] > ul > li[data-sidebar-id]', (items) =>
        items
          .filter((item) => item.getClientRects().length > 0)
          // The entry's label is the first line of its button (an "Open Group" hint for screen readers follows).
          .map((item) => [item.getAttribute('data-sidebar-id') ?? '', ((item.querySelector('button, a') as HTMLElement | null)?.innerText ?? '').split('\n')[0]!.trim()]),
      );
    const WAREHOUSES = 'tag/reference/GET/api/warehouses';
    /** Opens the page at an operation (by its anchor) and answers its section once its sample is drawn. */
    async function openOperation(anchor: string) {
      await page!.goto(`http://127.0.0.1:${port}/docs#${anchor}`, { waitUntil: 'load' });
      const section = page!.locator(`[id$="${anchor}"]`).first();
      await section.locator('pre code').first().waitFor({ state: 'visible', timeout: 20_000 });
      return section;
    }

    before(async () => {
      served = (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as typeof served;
      documentTags = (served.tags ?? []).map((tag) => tag.name);
      page = await browser!.context.newPage();
      log = record(page);
      await page.goto(`http://127.0.0.1:${port}/docs`, { waitUntil: 'load' });
    });

    after(async () => {
      if (process.env.BROWSER_TEST_SCREENSHOTS) console.log(`      ${await screenshot(page, 'docs')}`);
      await page?.close();
    });

    it('When the served document is read, Then it has every tag the issue names', () => {
      expect(documentTags).to.include.members(ISSUE_TAGS);
    });

    it('When /docs opens, Then Scalar renders the reference with every tag of the document in the side menu', async () => {
      await page!.locator('aside[role="navigation"] li[data-sidebar-id]').first().waitFor({ state: 'visible', timeout: 20_000 });
      expect(await page!.title()).to.match(/3PL/);
      const tags = (await menuEntries()).filter(([id]) => /(^|\/)tag\/[^/]+$/.test(id)).map(([, label]) => label);
      expect(documentTags, 'tags of the served document').not.to.be.empty;
      expect(tags).to.deep.equal(documentTags);
      await page!.locator('h1', { hasText: '3PL Logistics Integration API' }).first().waitFor({ state: 'visible', timeout: 5_000 });
    });

    it("When the side menu is read, Then the guide's chapters follow the Overview in the guide's order, and each opens its chapter", async () => {
      expect(chapters.map((c) => c.file)).to.include.members(['guide/quickstart.md', 'guide/sync.md', 'guide/idempotency.md', 'guide/errors.md', 'guide/limits.md', 'guide/webhooks.md']);
      const { anchors } = guideDescription(served.info.description, chapters);
      const entries = await menuEntries();
      const described = entries.filter(([id]) => id.startsWith('description/'));
      expect(described.map(([, label]) => label)).to.deep.equal(['Overview', ...chapters.map((c) => c.title)]);
      expect(described.slice(1).map(([id]) => id), 'the anchors the server computes for links between chapters').to.deep.equal(chapters.map((c) => anchors.get(c.file)));

      await sidebarItem(anchors.get('guide/idempotency.md')!).locator('button').first().click();
      const heading = page!.locator(`h1[id="${anchors.get('guide/idempotency.md')}"]`);
      await heading.waitFor({ state: 'visible', timeout: 5_000 });
      expect((await heading.innerText()).trim()).to.equal('Creating things exactly once: Idempotency-Key');
    });

    it('When a link to another chapter is followed (Errors -> Rate limits), Then the page shows that chapter', async () => {
      const { anchors } = guideDescription(served.info.description, chapters);
      await sidebarItem(anchors.get('guide/errors.md')!).locator('button').first().click();
      const link = page!.locator(`a[href="#${anchors.get('guide/limits.md')}"]`).first();
      await link.waitFor({ state: 'visible', timeout: 5_000 });
      await link.click();
      await page!.waitForFunction((id) => decodeURIComponent(location.hash) === `#${id}`, anchors.get('guide/limits.md'), { timeout: 5_000 });
      const heading = page!.locator(`h1[id="${anchors.get('guide/limits.md')}"]`);
      await heading.waitFor({ state: 'visible', timeout: 5_000 });
      expect((await heading.innerText()).trim()).to.equal('Rate limits');
    });

    it(`When "reception" is typed into the search box, Then the results list "${SEARCHED_OPERATION}" and it opens the operation`, async () => {
      await page!.locator('button[role="search"]').click();
      const search = page!.getByRole('dialog', { name: 'Reference Search' });
      await search.getByRole('combobox').pressSequentially('reception', { delay: 20 });
      const hit = search.locator('a[role="option"]', { hasText: SEARCHED_OPERATION });
      await hit.first().waitFor({ state: 'visible', timeout: 10_000 });
      expect(await hit.count()).to.equal(1);
      expect(await hit.getAttribute('id')).to.match(/\/POST\/api\/receptions$/);
      await hit.click();
      await page!.waitForFunction(() => location.hash.endsWith('/POST/api/receptions'), undefined, { timeout: 5_000 });
      const heading = page!.locator('[id$="tag/receptions/POST/api/receptions"] h3').first();
      await heading.waitFor({ state: 'visible', timeout: 5_000 });
      expect((await heading.innerText()).trim()).to.include(SEARCHED_OPERATION);
    });

    it('When an operation is shown, Then its request example is curl against APP_URL, and Node.js and Python samples are a click away', async () => {
      const section = await openOperation(WAREHOUSES);
      const sample = section.locator('pre code').first();
      expect(await sample.innerText()).to.match(new RegExp(`^curl http://127\\.0\\.0\\.1:${port}/api/warehouses`));
      const samples: Record<string, string> = {};
      for (const language of ['Node.js', 'Python', 'Shell']) {
        await page!.getByRole('tab', { name: language, exact: true }).first().click();
        await page!.waitForFunction(
          ({ selector, language }) => (document.querySelector(selector)?.textContent ?? '').includes(language === 'Shell' ? 'curl' : language === 'Python' ? 'import' : 'await'),
          { selector: `[id$="${WAREHOUSES}"] pre code`, language },
          { timeout: 5_000 },
        );
        samples[language] = await sample.innerText();
      }
      expect(samples['Node.js']).to.include(`http://127.0.0.1:${port}/api/warehouses`);
      expect(samples['Node.js']).to.include("Authorization: 'Bearer");
      expect(samples.Python).to.include('/api/warehouses');
      expect(samples.Python).to.include('Bearer');
      expect(samples.Shell).to.include("--header 'Authorization: Bearer");
    });

    it("When try-it sends List warehouses with a viewer's token, Then this server answers 200 and the client shows its warehouses", async () => {
      const section = await openOperation(WAREHOUSES);
      await section.getByRole('button', { name: /Test Request/ }).click();
      const client = page!.getByRole('dialog', { name: 'API Client' });
      const token = client.locator('[placeholder="Token"]').first();
      await token.waitFor({ state: 'visible', timeout: 10_000 });
      await token.click();
      await page!.keyboard.insertText(world.users.viewer.token);
      const answered = page!.waitForResponse((response: Response) => response.url().startsWith(`http://127.0.0.1:${port}/api/warehouses`) && response.request().method() === 'GET', { timeout: 15_000 });
      await client.getByRole('button', { name: /^Send get request to / }).first().click();
      const response = await answered;
      expect(response.request().headers().authorization).to.equal(`Bearer ${world.users.viewer.token}`);
      expect(response.status()).to.equal(200);
      const body = (await response.json()) as { data: Array<{ id: number; name: string }> };
      expect(body.data.map((w) => w.id)).to.include.members(world.warehouses);
      await client.getByText(body.data[0]!.name).first().waitFor({ state: 'visible', timeout: 10_000 });
      expect(await client.innerText()).to.match(/200/);
      await page!.keyboard.press('Escape');
    });

    it('Then no request left localhost, and there was no console error or page error', () => {
      expect(log.requests, 'the page made its request').to.include(`http://127.0.0.1:${port}/docs`);
      expect(offLocalhost(log.requests, port), 'requests off localhost').to.deep.equal([]);
      expect(log.consoleErrors, 'console errors').to.deep.equal([]);
      expect(log.pageErrors, 'page errors').to.deep.equal([]);
    });
  });

  describe('GraphiQL at GET /graphql', () => {
    let log: PageLog;
    const queryEditor = 'section.graphiql-query-editor .monaco-editor';
    const headersEditor = 'section.graphiql-editor-tool[aria-label="Headers"] .graphiql-editor:not(.hidden) .monaco-editor';
    const resultPane = 'section.result-window .monaco-editor .view-lines';

    /** Replaces the whole text of a Monaco editor as a person would: click, select all, type. */
    async function setEditor(selector: string, text: string): Promise<void> {
      await page!.locator(`${selector} .view-lines`).click();
      await page!.keyboard.press('ControlOrMeta+A');
      await page!.keyboard.press('Delete');
      // insertText types the text as one input, so Monaco does not auto-close brackets and quotes
      // key by key; on one line it adds nothing (a line break after "{" would get an extra "}").
      await page!.keyboard.insertText(text);
      const shown = editorText(await page!.locator(`${selector} .view-lines`).innerText());
      expect(shown.replace(/\s+/g, ''), `the editor shows what was typed`).to.equal(text.replace(/\s+/g, ''));
    }

    let introspection: Promise<Response>;

    before(async () => {
      page = await browser!.context.newPage();
      log = record(page);
      introspection = page.waitForResponse(
        (response: Response) => response.url() === `http://127.0.0.1:${port}/graphql` && (response.request().postData() ?? '').includes('__schema'),
        { timeout: 20_000 },
      );
      // A normal navigation: the browser sends Accept text/html.
      await page.goto(`http://127.0.0.1:${port}/graphql`, { waitUntil: 'load' });
    });

    after(async () => {
      if (process.env.BROWSER_TEST_SCREENSHOTS) console.log(`      ${await screenshot(page, 'graphiql')}`);
      await page?.close();
    });

    it('When a browser opens GET /graphql, Then GraphiQL loads with its query, headers and result panes', async () => {
      await page!.locator(`${queryEditor} .view-lines`).waitFor({ state: 'visible', timeout: 20_000 });
      expect(await page!.title()).to.equal('3PL GraphQL');
      await page!.locator('button.graphiql-execute-button').waitFor({ state: 'visible' });
      await page!.locator('section.result-window').waitFor({ state: 'visible' });
    });

    it('When GraphiQL opens, Then its first screen shows no error: the schema loads without a token, the Headers pane is open and empty, and the query says where the token goes', async () => {
      const response = await introspection;
      expect(response.status(), 'the schema fetch without a token').to.equal(200);
      expect(response.request().headers()).not.to.have.property('authorization');
      const body = (await response.json()) as { data?: { __schema?: { queryType?: { name: string } } }; errors?: unknown };
      expect(body.errors).to.equal(undefined);
      expect(body.data?.__schema?.queryType?.name).to.equal('Query');

      const query = editorText(await page!.locator(`${queryEditor} .view-lines`).innerText());
      expect(query).to.include('put your token and company in the Headers pane below');
      expect(query).to.include('articles(limit: 10)');
      await page!.locator(`${headersEditor} .view-lines`).waitFor({ state: 'visible', timeout: 5_000 });
      expect(editorText(await page!.locator(`${headersEditor} .view-lines`).innerText()).trim()).to.equal('');
      expect(editorText(await page!.locator(resultPane).innerText()).trim(), 'the result pane').to.equal('');

      // The schema is there: the documentation explorer lists the root type's fields.
      await page!.locator('.graphiql-sidebar button[aria-label="Show Documentation Explorer"]').click();
      const explorer = page!.locator('.graphiql-doc-explorer');
      await explorer.locator('a.graphiql-doc-explorer-type-name', { hasText: 'Query' }).first().click({ timeout: 10_000 });
      await explorer.locator('a.graphiql-doc-explorer-field-name', { hasText: 'articles' }).first().waitFor({ state: 'visible', timeout: 10_000 });
      await page!.locator('.graphiql-sidebar button[aria-label="Hide Documentation Explorer"]').click();
      await explorer.waitFor({ state: 'detached', timeout: 5_000 });
      expect(log.consoleErrors, 'console errors').to.deep.equal([]);
      expect(log.pageErrors, 'page errors').to.deep.equal([]);
    });

    it("When a viewer's headers and the articles query are entered and run, Then the result pane shows the world's article codes", async () => {
      const headersTab = page!.locator('.graphiql-editor-tools button[data-name="headers"]');
      if (!((await headersTab.getAttribute('class')) ?? '').split(/\s+/).includes('active')) await headersTab.click();
      await page!.locator(`${headersEditor} .view-lines`).waitFor({ state: 'visible', timeout: 5_000 });
      await setEditor(headersEditor, JSON.stringify({ Authorization: `Bearer ${world.users.viewer.token}`, 'X-Company-Id': String(world.client.id) }));
      await setEditor(queryEditor, ARTICLES_QUERY);

      const answered = page!.waitForResponse(
        (response: Response) => response.url() === `http://127.0.0.1:${port}/graphql` && response.request().method() === 'POST' && (response.request().postData() ?? '').includes('article_code'),
        { timeout: 15_000 },
      );
      await page!.locator('button.graphiql-execute-button').click();
      const response = await answered;
      expect(response.status()).to.equal(200);
      const body = (await response.json()) as { data?: { articles: Array<{ article_code: string }> }; errors?: unknown };
      expect(body.errors).to.equal(undefined);
      expect(body.data!.articles.map((a) => a.article_code)).to.have.members(articleCodes);

      // What a person sees: the result pane with each article code of the world, and none of the other client.
      await page!.waitForFunction(
        ({ selector, codes }) => {
          const text = (document.querySelector(selector) as HTMLElement | null)?.innerText ?? '';
          return codes.every((code) => text.includes(code));
        },
        { selector: resultPane, codes: articleCodes },
        { timeout: 10_000 },
      );
      const result = editorText(await page!.locator(resultPane).innerText());
      expect(result).to.include('"articles"');
      for (const code of articleCodes) expect(result).to.include(`"article_code": "${code}"`);
      expect(result).not.to.include(world.articles.otherClient.code);
      expect(result).not.to.include('"errors"');
    });

    it('Then no request left localhost, and there was no page error nor console error', () => {
      expect(log.requests, 'the page made its request').to.include(`http://127.0.0.1:${port}/graphql`);
      expect(offLocalhost(log.requests, port), 'requests off localhost').to.deep.equal([]);
      expect(log.pageErrors, 'page errors').to.deep.equal([]);
      expect(log.consoleErrors, 'console errors').to.deep.equal([]);
    });

    it('When the page is reloaded after the query ran (GraphiQL keeps the query in the address), Then GraphiQL loads again with the query', async () => {
      const address = page!.url();
      expect(new URL(address).searchParams.get('query'), 'GraphiQL has put the query into the address').to.include('articles(limit: 5)');
      const response = await page!.reload({ waitUntil: 'load' });
      const answered = `${response?.status()} ${response?.headers()['content-type']}: ${((await response?.text()) ?? '').trim().slice(0, 200)}`;
      expect(response?.status(), `reloading ${address} answered ${answered}`).to.equal(200);
      expect(response?.headers()['content-type'], `reloading ${address} answered ${answered}`).to.match(/^text\/html/);
      await page!.locator(`${queryEditor} .view-lines`).waitFor({ state: 'visible', timeout: 20_000 });
      expect(editorText(await page!.locator(`${queryEditor} .view-lines`).innerText())).to.include('articles(limit: 5)');
      expect(offLocalhost(log.requests, port), 'requests off localhost').to.deep.equal([]);
    });
  });
});
