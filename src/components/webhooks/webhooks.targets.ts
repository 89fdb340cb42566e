/**
 * Where deliveries may go: https (http only when WEBHOOK_ALLOW_HTTP), and never to loopback,
 * private, link-local (cloud metadata), shared, documentation or reserved addresses unless
 * WEBHOOK_ALLOW_PRIVATE_TARGETS, nor to an IPv6 address that carries one of those IPv4 addresses
 * (IPv4-mapped, IPv4-translated, NAT64, 6to4), nor to IPv6 outside global unicast 2000::/3
 * (IPv4-compatible ::/96, discard 100::/64, unique local, site-local, link-local, multicast ...)
 * or to its special blocks (Teredo and the other IETF assignments, documentation).
 * Checked when a subscription is saved and again at every delivery: the scheme and credentials of
 * the stored URL (the configuration may have changed since), and the address the socket connects
 * to (so a DNS answer that changes cannot slip through).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation (TEST-NET-1, -2, -3)
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['192.88.99.0', 24], // the 6to4 relay anycast (deprecated by RFC 7526, IANA special-purpose)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
/** Global unicast (2000::/3): every other IPv6 address is loopback, local, multicast, reserved or unassigned. */
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
for (const [network, prefix] of [
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4, unless it carries a public IPv4 address (embeddedIPv4)
  ['3fff::', 20], // documentation
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (isIP() said 6), a trailing dotted IPv4 included. */
function ipv6Bytes(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = dotted
    ? `${address.slice(0, dotted.index)}${((+dotted[1]! << 8) | +dotted[2]!).toString(16)}:${((+dotted[3]! << 8) | +dotted[4]!).toString(16)}`
    : address;
  const [head, tail] = hex.split('::') as [string, string | undefined];
  const groups = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  return all.flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 0xff]);
}

/**
 * The IPv4 address an IPv6 address carries and is routed to: IPv4-mapped ::ffff:0:0/96, IPv4-
 * translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 (the last 32 bits), 6to4 2002::/16 (bits 16-47).
 */
function embeddedIPv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const zero = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  const v4 = (at: number): string => b.slice(at, at + 4).join('.');
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12);
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return v4(12);
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return v4(12);
  return undefined;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIPv4(address);
  if (v4 !== undefined) return isPublicAddress(v4);
  return globalUnicast.check(address, 'ipv6') && !blocked.check(address, 'ipv6');
}

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** Why the URL's form (scheme, credentials) may not receive deliveries: checked when it is saved and at every delivery. */
export function refuseForm(url: URL, allowHttp: boolean): string | undefined {
  const schemes = allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return `The url must use ${allowHttp ? 'https or http' : 'https'}.`;
  if (url.username || url.password) return 'The url must not carry credentials.';
  return undefined;
}

/** The URL as it is stored and shown: parsed and written back (`new URL(url).href`), so what is checked is what is used. */
export function normalisedUrl(url: string): string {
  return new URL(url).href;
}

/** Why the URL may not receive deliveries, or undefined when it may. */
export async function refuseTarget(url: string, policy: TargetPolicy): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'The url must be an absolute URL, such as https://erp.example.com/hooks.';
  }
  const refusal = refuseForm(parsed, policy.allowHttp);
  if (refusal || policy.allowPrivate) return refusal;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await resolveAll(host);
  if (addresses === undefined) return `The url's host ${host} could not be resolved.`;
  if (addresses.some((address) => !isPublicAddress(address))) {
    return `The url's host ${host} resolves to a loopback, private, link-local or reserved address.`;
  }
  return undefined;
}

function resolveAll(host: string): Promise<string[] | undefined> {
  return new Promise((resolve) => dnsLookup(host, { all: true }, (error, found) => resolve(error ? undefined : found.map((a) => a.address))));
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for http.request that refuses to connect to an address that is not public. */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address as string, family);
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      if (!allowPrivate && addresses.some((a) => !isPublicAddress(a))) {
        const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to a private address; not delivered`);
        refused.code = 'EPRIVATETARGET';
        return callback(refused, address as string, family);
      }
      callback(null, address as string, family);
    });
  };
}
