/** Step 2: JSON bodies up to 1 MiB. Malformed JSON answers 400 and a larger body 413 (error-handler.ts). */
import express from 'express';
import type { RequestHandler } from 'express';

export const BODY_LIMIT = '1mb';

export function jsonBody(): RequestHandler {
  return express.json({ limit: BODY_LIMIT, strict: true, type: 'application/json' });
}
