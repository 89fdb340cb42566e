/** What the rate limits count by: the client's address, its credential, the login's email, the company asked for. */
import { hash } from 'node:crypto';
import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';

/** The client's address (X-Forwarded-For only under TRUST_PROXY); IPv6 by its /56, which one client holds. */
export function clientAddress(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
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

const COMPANY_ID = /^[1-9][0-9]{0,9}$/;

/** X-Company-Id when it is a company id, else '' (the tenancy step refuses other values). */
export function companyAskedFor(req: Request): string {
  const raw = req.headers['x-company-id'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  return COMPANY_ID.test(value) ? value : '';
}
