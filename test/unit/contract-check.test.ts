/** The contract check every API test relies on must itself catch what it promises to. */
import { expect } from 'chai';
import { checkResponse } from '../helpers/contract-check.js';

const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'c0ffee' };
const partner = {
  id: 7,
  client_3pl_id: 2,
  type: 'supplier',
  code: null,
  name: 'Fresh Farms',
  vat_code: null,
  email: null,
  phone: null,
  address: null,
  active: true,
  created_at: '2026-11-21T10:00:00.000000Z',
  updated_at: '2026-11-21T10:00:00.000000Z',
};

describe('checkResponse', () => {
  it('When the body matches the document, Then it passes', () => {
    checkResponse('GET', '/api/partners/7', { status: 200, headers: json, body: { data: partner } });
  });

  it('When a header the document declares required is missing (X-Request-Id), Then it fails naming it', () => {
    const { 'x-request-id': _id, ...withoutId } = json;
    expect(() => checkResponse('GET', '/api/partners/7', { status: 200, headers: withoutId, body: { data: partner } })).to.throw(/required header X-Request-Id is missing/);
  });

  it('When the body has a property the document does not name, Then it fails naming it', () => {
    expect(() =>
      checkResponse('GET', '/api/partners/7', { status: 200, headers: json, body: { data: { ...partner, password_hash: 'x' } } }),
    ).to.throw(/password_hash/);
  });

  it('When a field has the wrong type or is missing, Then it fails', () => {
    expect(() => checkResponse('GET', '/api/partners/7', { status: 200, headers: json, body: { data: { ...partner, id: '7' } } })).to.throw(/must be integer/);
    const { name: _name, ...withoutName } = partner;
    expect(() => checkResponse('GET', '/api/partners/7', { status: 200, headers: json, body: { data: withoutName } })).to.throw(/name/);
  });

  it('When an event of the feed carries data of another type than its own (an article as stock.changed), Then it fails; as article.created it passes', () => {
    const article = {
      id: 101, client_3pl_id: 2, article_code: 'ACME-1', name: null, description: 'Jar', um3pl: 'BUC', um3pl_barcode: null, barcode: null,
      integer_only_um3pl_quantity: true, lot_tracked: false, expiry_tracked: false, active: true, created_at: '2026-11-21T10:00:00.000000Z', updated_at: '2026-11-21T10:00:00.000000Z',
    };
    const page = (type: string) => ({ data: [{ id: 'evt_1', type, timestamp: '2026-11-21T10:00:00.000000Z', company_id: 2, data: article }], meta: { next_cursor: null } });
    expect(() => checkResponse('GET', '/api/events', { status: 200, headers: json, body: page('stock.changed') })).to.throw();
    expect(() => checkResponse('GET', '/api/events', { status: 200, headers: json, body: page('webhook.ping') })).to.throw();
    checkResponse('GET', '/api/events', { status: 200, headers: json, body: page('article.created') });
  });

  it('When the status is not documented for the operation, Then it fails', () => {
    expect(() => checkResponse('GET', '/api/partners/7', { status: 409, headers: json, body: { message: 'x' } })).to.throw(/not documented/);
  });

  it('When the content type is not documented, Then it fails', () => {
    expect(() => checkResponse('GET', '/api/partners/7', { status: 200, headers: { ...json, 'content-type': 'text/plain' }, body: {} })).to.throw(/content type/);
  });

  it('When a schema is composed with allOf, Then its parts may add properties but nothing else may', () => {
    const webhook = { id: 1, company_id: 2, url: 'https://x.example', events: ['*'], description: null, active: true, disabled_reason: null, created_at: partner.created_at, updated_at: partner.updated_at };
    checkResponse('POST', '/api/webhooks', { status: 201, headers: json, body: { data: { ...webhook, secret: 'whsec_x' } } });
    expect(() => checkResponse('POST', '/api/webhooks', { status: 201, headers: json, body: { data: { ...webhook, secret: 's', extra: 1 } } })).to.throw(/extra/);
  });

  it('When no operation matches, Then only a 404 or 405 error body passes', () => {
    checkResponse('GET', '/nowhere', { status: 404, headers: json, body: { message: 'x' } });
    expect(() => checkResponse('GET', '/nowhere', { status: 200, headers: json, body: {} })).to.throw(/no operation/);
  });
});
