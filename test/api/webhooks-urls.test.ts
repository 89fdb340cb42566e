/**
 * Where a subscription may point: https only (http with WEBHOOK_ALLOW_HTTP), never a loopback,
 * private, link-local or unresolvable host, never credentials (unless WEBHOOK_ALLOW_PRIVATE_TARGETS).
 * Public targets are IP literals (the sandbox has no outside DNS) and are created inactive, so no
 * worker of another suite ever sends to them.
 */
import { expect } from 'chai';
import { api, type Api } from '../helpers/api.js';
import { createWorld, unique, type World } from '../helpers/factories.js';
import { buildApp, harness, testConfig, type Harness } from '../helpers/harness.js';

const PUBLIC = 'https://93.184.216.34/hook';
const privateHost = (host: string) => `The url's host ${host} resolves to a loopback, private, link-local or reserved address.`;

/** [url, the host the message names] of targets refused when private targets are not allowed. */
const PRIVATE_TARGETS: Array<[string, string]> = [
  ['https://127.0.0.1/hook', '127.0.0.1'],
  ['https://127.8.9.10:8443/hook', '127.8.9.10'],
  ['https://localhost/hook', 'localhost'],
  ['https://[::1]/hook', '::1'],
  ['https://10.1.2.3/hook', '10.1.2.3'],
  ['https://192.168.1.10/hook', '192.168.1.10'],
  ['https://172.16.0.5/hook', '172.16.0.5'],
  ['https://172.31.255.254/hook', '172.31.255.254'],
  ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
  ['https://0.0.0.0/hook', '0.0.0.0'],
  ['https://100.64.0.1/hook', '100.64.0.1'],
  ['https://[fd00::1]/hook', 'fd00::1'],
  ['https://[fe80::1]/hook', 'fe80::1'],
  // Other spellings of loopback, as the URL parser normalises them.
  ['https://2130706433/hook', '127.0.0.1'],
  ['https://0x7f.1/hook', '127.0.0.1'],
  ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
  ['https://[::ffff:169.254.169.254]/hook', '::ffff:a9fe:a9fe'],
  // IPv6 that carries a private IPv4 address, or that is reserved (issue 16.11).
  ['https://[::127.0.0.1]/hook', '::7f00:1'],
  ['https://[2002:7f00:1::]/hook', '2002:7f00:1::'],
  ['https://[2002:a9fe:a9fe::1]/hook', '2002:a9fe:a9fe::1'],
  ['https://[64:ff9b::169.254.169.254]/hook', '64:ff9b::a9fe:a9fe'],
  ['https://[::ffff:0:127.0.0.1]/hook', '::ffff:0:7f00:1'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ['https://[100::1]/hook', '100::1'],
  ['https://[2001:db8::10]/hook', '2001:db8::10'],
  ['https://[fec0::1]/hook', 'fec0::1'],
  ['https://192.0.2.10/hook', '192.0.2.10'],
];

describe('Webhook target URLs', () => {
  let shared: Harness;
  let strict: Harness;
  let httpOnly: Harness;
  let world: World;

  before(async () => {
    shared = await harness();
    strict = await buildApp({ config: testConfig({ WEBHOOK_ALLOW_HTTP: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }) });
    httpOnly = await buildApp({ config: testConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }) });
    world = await createWorld(shared.app, shared.db);
  });

  const as = (h: Harness): Api => api(h.app, { token: world.users.admin.token, company: world.client.id });
  const count = async (): Promise<number> => (await shared.db('webhooks').where('company_id', world.client.id)).length;
  /** Asserts a 422 whose only error is `message` on url. */
  const refused = (message: string) => (res: { status: number; body: { errors?: unknown } }): void => {
    expect(res.status).to.equal(422);
    expect(res.body.errors).to.deep.equal({ url: [message] });
  };

  /** A subscription of a public target, inactive. */
  async function publicWebhook(h: Harness): Promise<{ id: number; url: string }> {
    const url = `${PUBLIC}/${unique()}`;
    const res = await as(h).post('/api/webhooks').send({ url, events: ['*'], active: false }).expect(201);
    expect(res.body.data).to.include({ url, active: false });
    return { id: res.body.data.id, url };
  }

  it('When private targets are refused, Then an https URL of a public address is accepted, IPv4 and IPv6', async () => {
    await publicWebhook(strict);
    const res = await as(strict).post('/api/webhooks').send({ url: 'https://[2606:4700:4700::1111]/hook', events: ['*'], active: false }).expect(201);
    expect(res.body.data.url).to.equal('https://[2606:4700:4700::1111]/hook');
  });

  it('When private targets are refused, Then IPv6 carrying a public IPv4 address (6to4, NAT64) is accepted', async () => {
    for (const url of ['https://[2002:5db8:d822::1]/hook', 'https://[64:ff9b::5db8:d822]/hook']) {
      const res = await as(strict).post('/api/webhooks').send({ url, events: ['*'], active: false }).expect(201);
      expect(res.body.data.url).to.equal(url);
    }
  });

  it('When a URL is sent in another spelling, Then it is checked, stored and shown as the URL parser writes it (POST and PUT)', async () => {
    const res = await as(strict).post('/api/webhooks').send({ url: 'HTTPS://0x5d.0xb8.0xd8.0x22:443/a/../hook?x=1', events: ['*'], active: false }).expect(201);
    expect(res.body.data.url).to.equal('https://93.184.216.34/hook?x=1');
    expect(await shared.db('webhooks').where('id', res.body.data.id).first()).to.include({ url: 'https://93.184.216.34/hook?x=1' });
    const put = await as(strict).put(`/api/webhooks/${res.body.data.id}`).send({ url: 'https://[2606:4700:4700:0:0:0:0:1111]:443/hook' }).expect(200);
    expect(put.body.data.url).to.equal('https://[2606:4700:4700::1111]/hook');
    expect((await as(strict).get(`/api/webhooks/${res.body.data.id}`).expect(200)).body.data.url).to.equal('https://[2606:4700:4700::1111]/hook');
  });

  for (const [url, host] of PRIVATE_TARGETS) {
    it(`When private targets are refused, Then creating ${url} answers 422 on url and stores nothing`, async () => {
      const before = await count();
      await as(strict).post('/api/webhooks').send({ url, events: ['*'] }).expect(refused(privateHost(host)));
      await as(httpOnly).post('/api/webhooks').send({ url: url.replace('https:', 'http:'), events: ['*'] }).expect(refused(privateHost(host)));
      expect(await count()).to.equal(before);
    });
  }

  it('When private targets are refused, Then a host that cannot be resolved answers 422 on url', async () => {
    const before = await count();
    await as(strict).post('/api/webhooks').send({ url: 'https://no-such-host.invalid/hook', events: ['*'] })
      .expect(refused("The url's host no-such-host.invalid could not be resolved."));
    expect(await count()).to.equal(before);
  });

  it('When the URL carries credentials, Then it answers 422 on url', async () => {
    const before = await count();
    for (const url of ['https://user:pass@93.184.216.34/hook', 'https://user@93.184.216.34/hook']) {
      await as(strict).post('/api/webhooks').send({ url, events: ['*'], active: false }).expect(refused('The url must not carry credentials.'));
    }
    expect(await count()).to.equal(before);
  });

  it('When WEBHOOK_ALLOW_HTTP is false, Then an http URL answers 422 on url; when true, a public http URL is accepted', async () => {
    const before = await count();
    await as(strict).post('/api/webhooks').send({ url: 'http://93.184.216.34/hook', events: ['*'], active: false }).expect(refused('The url must use https.'));
    expect(await count()).to.equal(before);
    const res = await as(httpOnly).post('/api/webhooks').send({ url: 'http://93.184.216.34/hook', events: ['*'], active: false }).expect(201);
    expect(res.body.data.url).to.equal('http://93.184.216.34/hook');
  });

  it('When the URL is not absolute or not http(s), Then every app answers 422 on url', async () => {
    for (const h of [strict, shared]) {
      await as(h).post('/api/webhooks').send({ url: 'erp.example.com/hooks', events: ['*'] })
        .expect(refused('The url must be an absolute URL, such as https://erp.example.com/hooks.'));
    }
    await as(shared).post('/api/webhooks').send({ url: 'ftp://127.0.0.1/hooks', events: ['*'] }).expect(refused('The url must use https or http.'));
    await as(strict).post('/api/webhooks').send({ url: 'ftp://93.184.216.34/hooks', events: ['*'] }).expect(refused('The url must use https.'));
  });

  it('When a PUT sets a refused URL, Then it answers 422 on url and the stored URL is kept', async () => {
    const { id, url } = await publicWebhook(strict);
    const refusals: Array<[string, string]> = [
      ['https://127.0.0.1/hook', privateHost('127.0.0.1')],
      ['https://localhost/hook', privateHost('localhost')],
      ['https://[::1]/hook', privateHost('::1')],
      ['https://169.254.169.254/latest', privateHost('169.254.169.254')],
      ['https://10.0.0.1/hook', privateHost('10.0.0.1')],
      ['https://no-such-host.invalid/hook', "The url's host no-such-host.invalid could not be resolved."],
      ['https://a:b@93.184.216.34/hook', 'The url must not carry credentials.'],
      ['http://93.184.216.34/hook', 'The url must use https.'],
    ];
    const before = await shared.db('webhooks').where('id', id).first();
    for (const [target, message] of refusals) {
      await as(strict).put(`/api/webhooks/${id}`).send({ url: target, description: 'changed', rotate_secret: true }).expect(refused(message));
    }
    expect(await shared.db('webhooks').where('id', id).first()).to.deep.equal(before);
    expect(before).to.include({ url, description: null });
    const next = `${PUBLIC}/${unique()}`;
    const ok = await as(strict).put(`/api/webhooks/${id}`).send({ url: next }).expect(200);
    expect(ok.body.data.url).to.equal(next);
  });

  it('When a URL within 2048 characters grows past them once normalised (é is %C3%A9), Then POST and PUT answer 422 on url saying so, and nothing is stored', async () => {
    const long = `${PUBLIC}/${'é'.repeat(400)}`;
    const stored = new URL(long).href;
    expect([long.length <= 2048, stored.length > 2048]).to.deep.equal([true, true]);
    const message = `The url must not be longer than 2048 characters as it is stored, normalised (new URL(url).href: characters beyond ASCII percent-encoded); this one is ${stored.length}.`;
    const before = await count();
    await as(strict).post('/api/webhooks').send({ url: long, events: ['*'], active: false }).expect(refused(message));
    expect(await count()).to.equal(before);
    const { id, url } = await publicWebhook(strict);
    await as(strict).put(`/api/webhooks/${id}`).send({ url: long }).expect(refused(message));
    expect((await shared.db('webhooks').where('id', id).first()).url).to.equal(url);
    const fits = `${PUBLIC}/${'é'.repeat(336)}abcde`;
    expect(new URL(fits).href.length).to.equal(2048);
    expect((await as(strict).put(`/api/webhooks/${id}`).send({ url: fits }).expect(200)).body.data.url).to.equal(new URL(fits).href);
  });

  it('When WEBHOOK_ALLOW_PRIVATE_TARGETS and WEBHOOK_ALLOW_HTTP are true, Then loopback, private and unresolvable hosts are accepted', async () => {
    const urls = [
      'http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'https://[::1]:9/hook', 'https://10.0.0.1/hook',
      'https://192.168.0.1/hook', 'https://169.254.169.254/hook', 'https://no-such-host.invalid/hook',
    ];
    for (const url of urls) {
      const res = await as(shared).post('/api/webhooks').send({ url, events: ['*'], active: false }).expect(201);
      expect(res.body.data.url).to.equal(url);
      const put = await as(shared).put(`/api/webhooks/${res.body.data.id}`).send({ url: `${url}/v2` }).expect(200);
      expect(put.body.data.url).to.equal(`${url}/v2`);
    }
  });
});
