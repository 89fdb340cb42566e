/**
 * Entity tags of resources and the If-Match precondition of their updates (RFC 9110, 8.8.3 and
 * 13.1.1). A resource's tag is a strong validator of its JSON: the same resource as answered
 * always has the same tag, and any change of what is answered changes it; sent compressed, the
 * tag names the encoding too (json-answer.ts), and If-Match takes either form. If-Match is `*` (any
 * version) or a list of tags; a weak tag (`W/"..."`) never matches. The check runs where the
 * service has locked the resource, so a write between the caller's read and this one is seen.
 */
import { createHash } from 'node:crypto';
import { PreconditionFailedError } from '../errors.js';

/** A strong validator of these bytes (RFC 9110, 8.8.3). */
export function strongTag(content: string | Buffer): string {
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, 27)}"`;
}

/** The tag of the same content sent in `encoding`: a strong validator names the bytes sent (`"<tag>-gzip"`). */
export function encodedTag(tag: string, encoding: string): string {
  return `${tag.slice(0, -1)}-${encoding}"`;
}

export function entityTag(resource: unknown): string {
  return strongTag(JSON.stringify(resource));
}

/**
 * The precondition an update checks on the resource as it locked it, or undefined without
 * If-Match. `name` says what the resource is in the message (`Article 101`).
 */
export function ifMatch<T>(header: string | string[] | undefined, name: (resource: T) => string): ((current: T) => void) | undefined {
  if (header === undefined) return undefined;
  const tags = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  return (current) => {
    if (tags.includes('*')) return;
    const now = entityTag(current);
    // The tag as sent uncompressed, or as sent in an encoding (`"<tag>-br"`): the same version.
    if (tags.some((tag) => tag === now || (tag.startsWith(`${now.slice(0, -1)}-`) && tag.endsWith('"')))) return;
    throw new PreconditionFailedError(
      `${name(current)} has changed since the version you sent in If-Match (it is now ${now}): read it again, apply your change to it and send its ETag.`,
      now,
    );
  };
}
