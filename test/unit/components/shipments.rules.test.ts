/** The rules of a shipment's own fields: its tracking URL and when it shipped. */
import { expect } from 'chai';
import { messages, shippedAtProblem, trackingUrlProblem } from '../../../src/components/sales-orders/shipments.rules.js';
import { fromApiTime } from '../../../src/kernel/time.js';

describe('shipments.rules', () => {
  it('When a tracking URL is an absolute http or https URL, Then it is taken; anything else is refused with how to fix it', () => {
    for (const url of ['https://www.dhl.com/track?id=JD0146', 'http://carrier.example/t/1', 'HTTPS://UPS.example:8443/x']) expect(trackingUrlProblem(url), url).to.equal(undefined);
    for (const url of ['www.dhl.com/track', 'JD014600006281230704', 'ftp://carrier.example/x', 'javascript:alert(1)', 'https://', 'mailto:a@b.example']) {
      expect(trackingUrlProblem(url), url).to.equal(messages.trackingUrl);
    }
    expect(messages.trackingUrl).to.equal('The tracking_url must be an absolute http or https URL, such as https://carrier.example/track?id=JD0146.');
  });

  it('When a ship time is within 2000 and 10 minutes from now, Then it is taken; earlier or later is refused', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(shippedAtProblem(fromApiTime('2026-11-21T10:10:00Z'), now)).to.equal(undefined);
    expect(shippedAtProblem(fromApiTime('2026-11-20T08:00:00+02:00'), now)).to.equal(undefined);
    expect(shippedAtProblem(fromApiTime('2000-01-01T00:00:00Z'), now)).to.equal(undefined);
    expect(shippedAtProblem(fromApiTime('2026-11-21T10:10:00.000001Z'), now)).to.equal(messages.shippedAtFuture);
    expect(shippedAtProblem(fromApiTime('1999-12-31T23:59:59.999999Z'), now)).to.equal(messages.shippedAtPast);
    expect(shippedAtProblem(fromApiTime('0001-01-01T00:00:00Z'), now)).to.equal(messages.shippedAtPast);
  });
});
