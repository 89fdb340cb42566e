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
 * Whether a precondition header's value (`*`, or a list of tags) names `tag`, as sent uncompressed
 * or in an encoding (`"<tag>-br"`): the same version either way. If-None-Match compares weakly (a
 * `W/"..."` tag names its strong form); If-Match compares strongly (a weak tag never matches).
 */
export function namesTag(header: string | string[] | undefined, tag: string, { weak }: { weak: boolean }): boolean {
  if (header === undefined) return false;
  const encodedPrefix = `${tag.slice(0, -1)}-`;
  return (Array.isArray(header) ? header.join(',') : header).split(',').some((listed) => {
    const value = weak ? listed.trim().replace(/^W\//, '') : listed.trim();
    return value === '*' || value === tag || (value.startsWith(encodedPrefix) && value.endsWith('"'));
  });
}

/**
 * The precondition an update checks on the resource as it locked it, or undefined without
 * If-Match. `name` says what the resource is in the message (`Article 101`).
 */
export function ifMatch<T>(header: string | string[] | undefined, name: (resource: T) => string): ((current: T) => void) | undefined {
  if (header === undefined) return undefined;
  return (current) => {
    const now = entityTag(current);
    if (namesTag(header, now, { weak: false })) return;
    throw new PreconditionFailedError(
      `${name(current)} has changed since the version you sent in If-Match (it is now ${now}): read it again, apply your change to it and send its ETag.`,
      now,
    );
  };
}
