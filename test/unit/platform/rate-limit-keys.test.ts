import { expect } from 'chai';
import { ipKeyGenerator } from 'express-rate-limit';
import { addressKey, keptAddressKeys } from '../../../src/platform/http/rate-limit-keys.js';

describe('addressKey (what the rate limits count an address by)', () => {
  it('When an address is IPv4, IPv4-mapped or IPv6, Then its key is the IPv4 address or the IPv6 /56, the same when asked again', () => {
    const addresses = ['203.0.113.5', '::ffff:203.0.113.5', '2001:db8:0:12::1', '2001:db8:0:ff::2', '2001:db8:0:100::1', '::1', 'unknown'];
    const first = addresses.map(addressKey);
    expect(first).to.deep.equal(['203.0.113.5', '203.0.113.5', '2001:db8::/56', '2001:db8::/56', '2001:db8:0:100::/56', '::/56', 'unknown']);
    expect(addresses.map(addressKey)).to.deep.equal(first);
    expect(first).to.deep.equal(addresses.map((address) => ipKeyGenerator(address)));
  });

  it('When the address is not one an IPv6 address could be (no colon, or longer than 45 characters: a forged X-Forwarded-For), Then its key is what ipKeyGenerator answers and it is not kept; a new IPv6 address is', () => {
    const kept = keptAddressKeys();
    for (const address of ['x'.repeat(5000), `${'a:'.repeat(30)}1`, 'not-an-address']) expect(addressKey(address)).to.equal(ipKeyGenerator(address));
    expect(keptAddressKeys()).to.equal(kept);
    addressKey('2001:db8:0:42::7');
    expect(keptAddressKeys()).to.equal(kept + 1);
  });
});
