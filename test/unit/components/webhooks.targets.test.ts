/** webhooks.targets: which addresses are public, and why a URL may not receive deliveries. */
import { expect } from 'chai';
import { isPublicAddress, normalisedUrl, refuseForm, refuseTarget, type TargetPolicy } from '../../../src/components/webhooks/webhooks.targets.js';

const STRICT: TargetPolicy = { allowHttp: false, allowPrivate: false };
const HTTP_ONLY: TargetPolicy = { allowHttp: true, allowPrivate: false };
const OPEN: TargetPolicy = { allowHttp: true, allowPrivate: true };
const privateHost = (host: string) => `The url's host ${host} resolves to a loopback, private, link-local or reserved address.`;

/** [range, addresses in it: first, inside, last] that are never public. */
const BLOCKED: Array<[string, string[]]> = [
  ['0.0.0.0/8 ("this" network)', ['0.0.0.0', '0.1.2.3', '0.255.255.255']],
  ['10.0.0.0/8 (private)', ['10.0.0.0', '10.1.2.3', '10.255.255.255']],
  ['100.64.0.0/10 (shared, CGNAT)', ['100.64.0.0', '100.100.100.200', '100.127.255.255']],
  ['127.0.0.0/8 (loopback)', ['127.0.0.1', '127.8.9.10', '127.255.255.255']],
  ['169.254.0.0/16 (link-local, metadata)', ['169.254.0.0', '169.254.169.254', '169.254.255.255']],
  ['172.16.0.0/12 (private)', ['172.16.0.0', '172.20.1.1', '172.31.255.255']],
  ['192.0.0.0/24 (IETF protocol assignments)', ['192.0.0.0', '192.0.0.170', '192.0.0.255']],
  ['192.168.0.0/16 (private)', ['192.168.0.0', '192.168.1.1', '192.168.255.255']],
  ['198.18.0.0/15 (benchmarking)', ['198.18.0.0', '198.19.255.255']],
  ['224.0.0.0/4 (multicast)', ['224.0.0.1', '239.255.255.250']],
  ['240.0.0.0/4 (reserved, broadcast)', ['240.0.0.1', '255.255.255.255']],
  [':: (unspecified)', ['::', '0:0:0:0:0:0:0:0']],
  ['::1 (loopback)', ['::1', '0:0:0:0:0:0:0:1']],
  ['fc00::/7 (unique local)', ['fc00::', 'fd12:3456:789a::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
  ['fe80::/10 (link-local)', ['fe80::1', 'FE80::abcd', 'febf:ffff::1']],
  ['ff00::/8 (multicast)', ['ff02::1', 'ff0e::101']],
  ['64:ff9b::/96 (NAT64) of a blocked IPv4', ['64:ff9b::7f00:1', '64:ff9b::a00:1', '64:ff9b::169.254.169.254']],
  ['::ffff:0:0/96 (IPv4-mapped) of a blocked IPv4', ['::ffff:127.0.0.1', '::FFFF:10.0.0.1', '::ffff:169.254.169.254', '::ffff:192.168.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe']],
  ['::ffff:0:0:0/96 (IPv4-translated) of a blocked IPv4', ['::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '0:0:0:0:ffff:0:a9fe:a9fe']],
  ['2002::/16 (6to4) of a blocked IPv4', ['2002:7f00:1::', '2002:7f00:1::1', '2002:a00:1::', '2002:a9fe:a9fe:1::', '2002::']],
  ['::/96 (IPv4-compatible, deprecated), whatever IPv4 it holds', ['::127.0.0.1', '::7f00:1', '::8.8.8.8', '::a00:1', '::ffff']],
  ['2001::/32 (Teredo)', ['2001::', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff']],
  ['2001::/23 (IETF protocol assignments: benchmarking, ORCHID)', ['2001:2::1', '2001:10::1', '2001:20::1', '2001:1ff:ffff::1']],
  ['2001:db8::/32 and 3fff::/20 (documentation)', ['2001:db8::', '2001:db8:ffff::1', '3fff::1', '3fff:fff:ffff::1']],
  ['100::/64 (discard)', ['100::', '100::1', '100::ffff:ffff:ffff:ffff']],
  ['outside 2000::/3 (reserved, SRv6, site-local, NAT64 for local use)', ['5f00::1', 'fec0::1', 'feff::1', '64:ff9b:1::808:808', '4000::1', '1fff:ffff::1', 'e000::1']],
  ['192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 (documentation)', ['192.0.2.0', '192.0.2.255', '198.51.100.7', '203.0.113.1']],
  ['192.88.99.0/24 (6to4 relay anycast, deprecated)', ['192.88.99.0', '192.88.99.1', '192.88.99.255']],
];

const PUBLIC = [
  '8.8.8.8', '1.1.1.1', '93.184.216.34', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '126.255.255.255',
  '128.0.0.0', '169.253.255.255', '169.255.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.0', '198.17.255.255', '198.20.0.0',
  '223.255.255.255', '2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:82b::200e', '::ffff:8.8.8.8', '::ffff:5db8:d822',
  '192.0.1.255', '192.0.3.0', '198.51.99.255', '203.0.114.0', '192.88.98.255', '192.88.100.0',
  // IPv6 carrying a public IPv4 address: 6to4, NAT64, IPv4-translated.
  '2002:808:808::1', '2002:5db8:d822:1::', '64:ff9b::8.8.8.8', '64:ff9b::808:808', '::ffff:0:808:808',
  // Next to the special blocks: after 2001::/23, beside 2001:db8::/32, after 3fff::/20, the last of 2000::/3.
  '2001:200::1', '2001:db9::1', '2001:db7:ffff::1', '3fff:1000::1', '3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
];

describe('webhooks.targets', () => {
  describe('isPublicAddress', () => {
    for (const [range, addresses] of BLOCKED) {
      it(`When an address is in ${range}, Then it is not public`, () => {
        for (const address of addresses) expect(isPublicAddress(address), address).to.equal(false);
      });
    }

    it('When an address is outside every blocked range, Then it is public, IPv4, IPv6 and IPv4-mapped', () => {
      for (const address of PUBLIC) expect(isPublicAddress(address), address).to.equal(true);
    });

    it('When the text is not an IP address, Then it is not public', () => {
      for (const text of ['', 'localhost', 'example.com', '256.1.1.1', '1.2.3', '[::1]', '8.8.8.8:53', '::ffff:999.0.0.1']) {
        expect(isPublicAddress(text), text).to.equal(false);
      }
    });
  });

  describe('refuseTarget', () => {
    it('When the URL is a public https address, Then it is accepted', async () => {
      for (const url of ['https://93.184.216.34/hook', 'https://93.184.216.34:8443/a/b?c=d', 'https://[2606:4700:4700::1111]/hook', 'https://[2002:808:808::1]/hook', 'https://[64:ff9b::8.8.8.8]/hook']) {
        expect(await refuseTarget(url, STRICT), url).to.equal(undefined);
      }
    });

    it('When the URL is not absolute, Then the message says so', async () => {
      for (const url of ['', 'erp.example.com/hooks', '/hooks', 'https//93.184.216.34']) {
        expect(await refuseTarget(url, OPEN), url).to.equal('The url must be an absolute URL, such as https://erp.example.com/hooks.');
      }
    });

    it('When the scheme is not allowed, Then the message names the allowed ones', async () => {
      expect(await refuseTarget('http://93.184.216.34/hook', STRICT)).to.equal('The url must use https.');
      expect(await refuseTarget('ftp://93.184.216.34/hook', STRICT)).to.equal('The url must use https.');
      expect(await refuseTarget('ftp://93.184.216.34/hook', HTTP_ONLY)).to.equal('The url must use https or http.');
      expect(await refuseTarget('file:///etc/passwd', OPEN)).to.equal('The url must use https or http.');
      expect(await refuseTarget('http://93.184.216.34/hook', HTTP_ONLY)).to.equal(undefined);
    });

    it('When the URL carries credentials, Then it is refused, whatever the policy', async () => {
      for (const policy of [STRICT, OPEN]) {
        for (const url of ['https://user:secret@93.184.216.34/hook', 'https://user@93.184.216.34/hook', 'https://:secret@93.184.216.34/hook']) {
          expect(await refuseTarget(url, policy), url).to.equal('The url must not carry credentials.');
        }
      }
    });

    it('When the host is, or resolves to, a blocked address, Then the message names the host', async () => {
      const cases: Array<[string, string]> = [
        ['https://127.0.0.1/hook', '127.0.0.1'],
        ['https://localhost/hook', 'localhost'],
        ['https://[::1]/hook', '::1'],
        ['https://10.0.0.1/hook', '10.0.0.1'],
        ['https://192.168.10.20/hook', '192.168.10.20'],
        ['https://172.16.0.1/hook', '172.16.0.1'],
        ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
        ['https://0.0.0.0/hook', '0.0.0.0'],
        ['https://2130706433/hook', '127.0.0.1'],
        ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
        ['https://[fe80::1]/hook', 'fe80::1'],
        ['https://[::127.0.0.1]/hook', '::7f00:1'],
        ['https://[2002:7f00:1::]/hook', '2002:7f00:1::'],
        ['https://[64:ff9b::127.0.0.1]/hook', '64:ff9b::7f00:1'],
        ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
        ['https://[100::1]/hook', '100::1'],
        ['https://[2001:db8::1]/hook', '2001:db8::1'],
      ];
      for (const [url, host] of cases) {
        expect(await refuseTarget(url, STRICT), url).to.equal(privateHost(host));
        expect(await refuseTarget(url.replace('https:', 'http:'), HTTP_ONLY), url).to.equal(privateHost(host));
      }
    });

    it('When the host cannot be resolved, Then the message says so', async () => {
      expect(await refuseTarget('https://no-such-host.invalid/hook', STRICT)).to.equal("The url's host no-such-host.invalid could not be resolved.");
    });

    it('When private targets are allowed, Then loopback, private and unresolvable hosts are accepted', async () => {
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost/hook', 'https://[::1]/hook', 'https://169.254.169.254/', 'https://no-such-host.invalid/hook']) {
        expect(await refuseTarget(url, OPEN), url).to.equal(undefined);
      }
    });
  });

  describe('normalisedUrl and refuseForm', () => {
    it('When a URL is written in another form, Then it is stored as the URL parser writes it back', () => {
      const cases: Array<[string, string]> = [
        ['HTTPS://ERP.Example.COM/Hooks', 'https://erp.example.com/Hooks'],
        ['https://erp.example.com', 'https://erp.example.com/'],
        ['https://erp.example.com:443/a/../hooks?x=1', 'https://erp.example.com/hooks?x=1'],
        ['https://[2606:4700:4700:0:0:0:0:1111]:8443/hook', 'https://[2606:4700:4700::1111]:8443/hook'],
        ['https://0x5d.0xb8.0xd8.0x22/hook', 'https://93.184.216.34/hook'],
        ['https://erp.example.com/a b', 'https://erp.example.com/a%20b'],
      ];
      for (const [url, stored] of cases) expect(normalisedUrl(url), url).to.equal(stored);
    });

    it('When the scheme or credentials are checked at delivery, Then they follow the policy of that moment', () => {
      expect(refuseForm(new URL('http://93.184.216.34/hook'), false)).to.equal('The url must use https.');
      expect(refuseForm(new URL('http://93.184.216.34/hook'), true)).to.equal(undefined);
      expect(refuseForm(new URL('https://93.184.216.34/hook'), false)).to.equal(undefined);
      expect(refuseForm(new URL('https://u:p@93.184.216.34/hook'), true)).to.equal('The url must not carry credentials.');
    });
  });
});
