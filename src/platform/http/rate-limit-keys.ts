/** What the rate limits count by: the client's address, its credential, the login's email, the company asked for. */
import { hash } from 'node:crypto';
import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { LRUCache } from 'lru-cache';
import { companyIdOf } from './company-id.js';

/**
 * The keys of the IPv6 addresses seen lately. ipKeyGenerator parses every IPv6 address with
 * ip-address, 13–17 µs a call, where anything else costs nothing: the clients of a dual-stack
 * listener (HOST=::) all arrive as IPv6 (an IPv4 client as ::ffff:a.b.c.d), and so does every IPv6
 * client. Only what may be an IPv6 address is kept (a colon, at most 45 characters: the longest
 * IPv4-mapped form), so a forged X-Forwarded-For under TRUST_PROXY cannot fill the cache with long
 * strings: 4,096 entries of at most 45 characters.
 */
const addressKeys = new LRUCache<string, string>({ max: 4096 });
const LONGEST_IPV6 = 45;

/** An address as the limits count it: IPv4 as it is (also when IPv4-mapped), IPv6 by its /56, which one client holds. */
export function addressKey(address: string): string {
  if (address.length > LONGEST_IPV6 || !address.includes(':')) return ipKeyGenerator(address);
  let key = addressKeys.get(address);
  if (key === undefined) {
    key = ipKeyGenerator(address);
    addressKeys.set(address, key);
  }
  return key;
}

/** How many address keys are kept (for the test of the bound). */
export function keptAddressKeys(): number {
  return addressKeys.size;
}

/** The client's address (X-Forwarded-For only under TRUST_PROXY), keyed by addressKey. */
export function clientAddress(req: Request): string {
  return addressKey(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

/** A digest of the bearer credential sent (never the credential itself), or undefined without one. */
export function credentialDigest(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !/^bearer\s+\S/i.test(header)) return undefined;
  return hash('sha256', header.replace(/^bearer\s+/i, '').trim());
}

/** The digest credentialDigest gives for `secret` sent as a bearer token. */
export function secretDigest(secret: string): string {
  return hash('sha256', secret.trim());
}

export function loginEmail(req: Request): string {
  const email = (req.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' ? email.trim().toLowerCase() : '';
}

/** The company id X-Company-Id names (`02` as 2), else '' (the tenancy step refuses other values). */
export function companyAskedFor(req: Request): string {
  const raw = req.headers['x-company-id'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return String((value === undefined ? undefined : companyIdOf(value)) ?? '');
}
