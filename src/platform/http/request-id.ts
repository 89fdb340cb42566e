/** Step 1: every request has an id, echoed in X-Request-Id and written in every log line. */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    req.requestId = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', req.requestId);
    next();
  };
}
