/** webhooks.signing: secrets and signatures per Standard Webhooks, checked with the reference library. */
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { newSecret, signature } from '../../../src/components/webhooks/webhooks.signing.js';

const ID = 'evt_01JD2Z6Q8C3V5N7P9R1T3W5Y7A';
const BODY = JSON.stringify({ id: ID, type: 'stock.changed', timestamp: '2026-11-21T10:00:00.000000Z', company_id: 2, data: { article_code: 'ART-1', quantity: '12.500', note: 'Ulei de măsline, 1 l' } });

/** Changes one byte (one ASCII character) of `text` at `index`. */
function changed(text: string, index: number): string {
  const c = text.charCodeAt(index);
  return text.slice(0, index) + String.fromCharCode(c === 0x41 ? 0x42 : 0x41) + text.slice(index + 1);
}

describe('webhooks.signing', () => {
  const now = (): number => Math.floor(Date.now() / 1000);
  const headers = (secret: string, id = ID, timestamp = now(), body = BODY) => ({
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
  });

  it('When a secret is made, Then it is whsec_ + base64 of at least 24 random bytes, new each time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const secret = newSecret();
      expect(secret).to.match(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
      const key = Buffer.from(secret.slice(6), 'base64');
      expect(key.toString('base64')).to.equal(secret.slice(6));
      expect(key.length).to.be.at.least(24);
      seen.add(secret);
    }
    expect(seen.size).to.equal(50);
  });

  it('When a delivery is signed, Then the reference library verifies it and answers the body', () => {
    const secret = newSecret();
    const h = headers(secret);
    expect(h['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(BODY, h)).to.deep.equal(JSON.parse(BODY));
    expect(new Webhook(secret).verify(Buffer.from(BODY), h)).to.deep.equal(JSON.parse(BODY));
  });

  it("When the same message is signed, Then the signature is the library's and the HMAC-SHA256 of id.timestamp.body", () => {
    const secret = newSecret();
    const timestamp = 1_795_000_000;
    const ours = signature(secret, ID, timestamp, BODY);
    expect(ours).to.equal(new Webhook(secret).sign(ID, new Date(timestamp * 1000), BODY));
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(ours).to.equal(`v1,${createHmac('sha256', key).update(Buffer.from(`${ID}.${timestamp}.${BODY}`, 'utf8')).digest('base64')}`);
    expect(signature(secret.slice('whsec_'.length), ID, timestamp, BODY), 'a secret without its prefix').to.equal(ours);
  });

  it('When the example of the Standard Webhooks specification is signed, Then the signature is the one it gives', () => {
    const sig = signature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(sig).to.equal(new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').sign('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330_000), '{"test": 2432232314}'));
    expect(sig).to.equal('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('When one byte of the body changes, Then verification fails', () => {
    const secret = newSecret();
    const h = headers(secret);
    for (const index of [0, 1, Math.floor(BODY.length / 2), BODY.length - 2, BODY.length - 1]) {
      expect(() => new Webhook(secret).verify(changed(BODY, index), h), `byte ${index}`).to.throw(WebhookVerificationError);
    }
    expect(() => new Webhook(secret).verify(`${BODY} `, h), 'a byte added').to.throw(WebhookVerificationError);
  });

  it('When one byte of the id changes, Then verification fails', () => {
    const secret = newSecret();
    const h = headers(secret);
    for (const index of [0, 4, ID.length - 1]) {
      expect(() => new Webhook(secret).verify(BODY, { ...h, 'webhook-id': changed(ID, index) }), `byte ${index}`).to.throw(WebhookVerificationError);
    }
  });

  it('When the timestamp changes by a second or more, Then verification fails', () => {
    const secret = newSecret();
    const t = now();
    const h = headers(secret, ID, t);
    for (const other of [t + 1, t - 1, t + 10]) {
      expect(() => new Webhook(secret).verify(BODY, { ...h, 'webhook-timestamp': String(other) }), String(other)).to.throw(WebhookVerificationError);
    }
  });

  it('When another secret verifies, or the signature is altered, Then verification fails', () => {
    const secret = newSecret();
    const h = headers(secret);
    expect(() => new Webhook(newSecret()).verify(BODY, h)).to.throw(WebhookVerificationError);
    const altered = h['webhook-signature'].replace(/^v1,(.)/, (_, c: string) => `v1,${c === 'A' ? 'B' : 'A'}`);
    expect(() => new Webhook(secret).verify(BODY, { ...h, 'webhook-signature': altered })).to.throw(WebhookVerificationError);
  });
});
