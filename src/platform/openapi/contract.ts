/**
 * The contract at run time: the document, its operations (as openapi-backend reads them), the
 * operationId -> handler binding (openapi-backend, strict: a handler for an unknown operationId
 * fails the start), the operation router and the request validator.
 */
import { OpenAPIBackend } from 'openapi-backend';
import type { Document } from 'openapi-backend';
import { listOperations, readDocument } from './document.js';
import type { ContractOperation, OpenApiDocument, OperationId } from './document.js';
import type { AnyReply, HandlerMap } from './handler-types.js';
import { OperationRouter } from './operation-router.js';
import { NotImplementedError } from '../errors.js';

export type BoundHandler = (input: unknown) => Promise<AnyReply>;

export interface Contract {
  readonly document: OpenApiDocument;
  readonly operations: readonly ContractOperation[];
  readonly router: OperationRouter;
  handlerFor(operationId: OperationId): BoundHandler;
}

const notImplemented: BoundHandler = async () => {
  throw new NotImplementedError();
};

export async function loadContract(
  handlers: HandlerMap,
  notImplementedIds: readonly OperationId[],
  document: OpenApiDocument = readDocument(),
): Promise<Contract> {
  const api = new OpenAPIBackend({
    definition: structuredClone(document) as unknown as Document,
    strict: true,
    validate: false,
    handlers: { ...(handlers as Record<string, BoundHandler>), notImplemented },
  });
  await api.init();
  const operations = listOperations(document);
  if (operations.length !== api.getOperations().length) throw new Error('openapi-backend and the document disagree on the operations');
  for (const op of operations) {
    const bound = op.operationId in handlers;
    const listed = notImplementedIds.includes(op.operationId);
    if (bound === listed) {
      throw new Error(
        bound
          ? `${op.operationId} has a handler but is listed as not implemented`
          : `${op.operationId} has no handler and is not listed as not implemented`,
      );
    }
  }
  // Keep the binding, not openapi-backend: its dereferenced copy of the document is garbage after this.
  const bound = new Map(operations.map((op) => [op.operationId, (api.handlers[op.operationId] ?? notImplemented) as BoundHandler]));
  return {
    document,
    operations,
    router: new OperationRouter(operations),
    handlerFor: (operationId) => bound.get(operationId) ?? notImplemented,
  };
}
