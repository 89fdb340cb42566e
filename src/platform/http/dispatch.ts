/**
 * Step 9: calls the operation's handler with its validated input and writes the reply (an
 * idempotent request's key is completed with the reply in the transaction of its work, or
 * released when the handler fails).
 */
import type { Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../app-deps.js';
import type { Contract } from '../openapi/contract.js';
import type { AnyReply, RequestInfo } from '../openapi/handler-types.js';
import { JsonText } from '../openapi/json-text.js';
import { inTransaction } from '../db/transaction.js';
import type { RequestWithOpenApi } from './request-context.js';
import { writeJson } from './json-answer.js';
import { StaticBody, writeStatic } from './static-body.js';

export function writeReply(res: Response, reply: AnyReply): void {
  if (reply.body instanceof StaticBody) {
    if (reply.headers) res.set(reply.headers);
    writeStatic(res.req, res, reply.status, reply.body).catch(() => res.destroy());
    return;
  }
  const json = reply.body !== undefined && reply.contentType === undefined;
  res.status(reply.status);
  if (reply.contentType !== undefined) res.type(reply.contentType);
  // After the type: a reply's own headers may replace it (the Prometheus exposition's version).
  if (reply.headers) res.set(reply.headers);
  if (json) writeJson(res, reply.body instanceof JsonText ? reply.body.text : JSON.stringify(reply.body));
  else if (reply.body === undefined) res.end();
  else res.send(reply.body);
}

/**
 * What a handler reads of its request. The caller's address is worked out (from the proxy
 * settings) only when a handler reads it; a class getter, not an object literal's, so every
 * request's object shares one shape and dies young.
 */
class HandlerRequest implements RequestInfo {
  readonly requestId: string;
  readonly url: string;
  readonly headers: RequestInfo['headers'];
  readonly #req: Request;

  constructor(req: Request) {
    this.requestId = req.requestId;
    this.url = req.originalUrl;
    this.headers = req.headers;
    this.#req = req;
  }

  get ip(): string {
    return this.#req.ip ?? '';
  }
}

export function dispatch(contract: Contract, deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const op = req.operation!;
    const handler = contract.handlerFor(op.operationId);
    const run = (using: AppDeps): Promise<AnyReply> =>
      handler({
        params: (req as RequestWithOpenApi).openapi?.pathParams ?? {},
        query: req.query,
        body: req.body,
        deps: using,
        auth: req.auth,
        request: new HandlerRequest(req),
      });
    const claim = req.idempotency;
    let reply: AnyReply;
    try {
      // With a claimed Idempotency-Key, the work and its stored response commit together (the
      // services' transactions join this one; a deadlock retries the whole). The services lock,
      // then read, each step; read committed, each step sees what committed before its lock.
      reply = claim
        ? await inTransaction(
            deps.db,
            async (tx) => {
              const done = await run({ ...deps, db: tx });
              await claim.complete(tx, done);
              return done;
            },
            { readCommitted: true },
          )
        : await run(deps);
    } catch (error) {
      await claim?.release();
      throw error;
    }
    writeReply(res, reply);
  };
}
