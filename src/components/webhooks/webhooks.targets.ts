/**
 * Where deliveries may go: https (http only when WEBHOOK_ALLOW_HTTP), and never to loopback,
 * private, link-local (cloud metadata), shared or reserved addresses unless
 * WEBHOOK_ALLOW_PRIVATE_TARGETS. Checked when a subscription is saved and again at every
 * connection (the address the socket uses, so a DNS answer that changes cannot slip through).
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
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip);
  if (family === 0) return false;
  return !blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** Why the URL may not receive deliveries, or undefined when it may. */
export async function refuseTarget(url: string, policy: TargetPolicy): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'The url must be an absolute URL, such as https://erp.example.com/hooks.';
  }
  const schemes = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) return `The url must use ${policy.allowHttp ? 'https or http' : 'https'}.`;
  if (parsed.username || parsed.password) return 'The url must not carry credentials.';
  if (policy.allowPrivate) return undefined;
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
