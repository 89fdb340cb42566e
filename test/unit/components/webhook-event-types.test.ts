/**
 * The types a generator makes of WebhookEvent (here openapi-typescript's, the project's own) tell
 * the events apart by `type`: inside `case 'stock.changed'` the data is a StockChange, inside
 * `case 'article.created'` an Article. `make typecheck` compiles this file, so a document that
 * loses the discrimination fails the build (the @ts-expect-error below would then be unused).
 */
import { expect } from 'chai';
import type { components } from '../../../src/generated/openapi.generated.js';
import { EVENT_CATALOGUE } from '../../../src/generated/events.generated.js';

type WebhookEvent = components['schemas']['WebhookEvent'];

function summary(event: WebhookEvent): string {
  switch (event.type) {
    case 'stock.changed':
      return `${event.data.article_code} moved by ${event.data.delta} (${event.data.cause})`;
    case 'article.created':
      // @ts-expect-error an article has no delta: the data of article.created is an Article
      void event.data.delta;
      return `new article ${event.data.article_code}`;
    default:
      return event.type;
  }
}

describe('WebhookEvent as generated types see it', () => {
  it('When an SDK switches on type, Then each branch sees the data of its own event type', () => {
    const base = { id: 'evt_1', timestamp: '2026-11-21T10:00:00.000000Z', company_id: 2 };
    const stock = { ...base, type: 'stock.changed', data: { article_code: 'ACME-1', delta: -3, cause: 'delivery' } } as unknown as WebhookEvent;
    const article = { ...base, type: 'article.created', data: { article_code: 'ACME-2' } } as unknown as WebhookEvent;
    expect([summary(stock), summary(article)]).to.deep.equal(['ACME-1 moved by -3 (delivery)', 'new article ACME-2']);
  });

  it('When the catalogue is read, Then every event type has an envelope the union names', () => {
    const types: Array<WebhookEvent['type']> = Object.keys(EVENT_CATALOGUE) as Array<keyof typeof EVENT_CATALOGUE>;
    expect(types).to.include.members(['stock.changed', 'article.created', 'sales_order.status_changed']);
  });
});
