/**
 * Personal access tokens: `3pl_pat_` + 43 characters of base64url randomness (256 bits), so a
 * leaked token is recognisable by secret scanners. Only the SHA-256 hash is stored.
 */
import { hash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = '3pl_pat_';

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return hash('sha256', token);
}

export function looksLikeToken(value: string): boolean {
  return value.startsWith(TOKEN_PREFIX) && value.length === TOKEN_PREFIX.length + 43;
}
