/**
 * Step 2: JSON bodies up to 1 MiB. Malformed JSON answers 400 and a larger body 413 (error-handler.ts).
 * GET and HEAD bodies are never read (no operation of the document takes one, and the document
 * declares no 400 or 413 for them).
 */
import express from 'express';
import type { RequestHandler } from 'express';

export const BODY_LIMIT = '1mb';

export function jsonBody(): RequestHandler {
  const parse = express.json({ limit: BODY_LIMIT, strict: true, type: 'application/json' });
  return (req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? next() : parse(req, res, next));
}
