/**
 * Entity tags of resources and the If-Match precondition of their updates (RFC 9110, 8.8.3 and
 * 13.1.1). A resource's tag is a strong validator of its JSON: the same resource as answered
 * always has the same tag, and any change of what is answered changes it. If-Match is `*` (any
 * version) or a list of tags; a weak tag (`W/"..."`) never matches. The check runs where the
 * service has locked the resource, so a write between the caller's read and this one is seen.
 */
import { createHash } from 'node:crypto';
import { PreconditionFailedError } from '../errors.js';

export function entityTag(resource: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(resource)).digest('base64url').slice(0, 27)}"`;
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
    if (tags.includes(now)) return;
    throw new PreconditionFailedError(
      `${name(current)} has changed since the version you sent in If-Match (it is now ${now}): read it again, apply your change to it and send its ETag.`,
      now,
    );
  };
}
