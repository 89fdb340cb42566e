/**
 * Step 9: calls the operation's handler with its validated input and writes the reply (an
 * idempotent request's key is completed with the reply, or released when the handler fails).
 */
import type { RequestHandler, Response } from 'express';
import type { AppDeps } from '../app-deps.js';
import type { Contract } from '../openapi/contract.js';
import type { AnyReply } from '../openapi/handler-types.js';
import type { RequestWithOpenApi } from './request-context.js';

export function writeReply(res: Response, reply: AnyReply): void {
  res.status(reply.status);
  if (reply.contentType !== undefined) res.type(reply.contentType);
  if (reply.headers) res.set(reply.headers);
  if (reply.body === undefined) {
    res.end();
  } else if (reply.contentType !== undefined) {
    res.send(reply.body);
  } else {
    res.json(reply.body);
  }
}

export function dispatch(contract: Contract, deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const op = req.operation!;
    let reply: AnyReply;
    try {
      reply = await contract.handlerFor(op.operationId)({
        params: (req as RequestWithOpenApi).openapi?.pathParams ?? {},
        query: req.query,
        body: req.body,
        deps,
        auth: req.auth,
        request: { requestId: req.requestId, ip: req.ip ?? '', url: req.originalUrl, headers: req.headers },
      });
    } catch (error) {
      await req.idempotency?.release();
      throw error;
    }
    await req.idempotency?.complete(reply);
    writeReply(res, reply);
  };
}
