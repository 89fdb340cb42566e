/**
 * What each error means to a client, in one table that both answers read: the HTTP status of each
 * error of errors.ts (and of a database fault the client may retry), and the GraphQL code of each
 * status. REST's error handler (http/error-handler.ts) and GraphQL's error masking (graphql/yoga.ts)
 * both derive their answers from here, so a REST status and a GraphQL code never disagree.
 */
import * as errors from './errors.js';
import { isConnectionError, isLockWaitTimeout, isRetryableTransactionError, isSchemaBehind, isStorageError } from './db/driver-errors.js';

const STATUS = new Map<Function, number>([
  [errors.BadRequestError, 400],
  [errors.UnauthenticatedError, 401],
  [errors.ForbiddenError, 403],
  [errors.NotFoundError, 404],
  [errors.MethodNotAllowedError, 405],
  [errors.ConflictError, 409],
  [errors.PreconditionFailedError, 412],
  [errors.PayloadTooLargeError, 413],
  [errors.UnsupportedMediaTypeError, 415],
  [errors.InputError, 422],
  [errors.TooManyRequestsError, 429],
  [errors.NotImplementedError, 501],
  [errors.ServiceUnavailableError, 503],
]);

/** The GraphQL `extensions.code` of each HTTP status; any other status is INTERNAL_SERVER_ERROR. */
const GRAPHQL_CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'BAD_USER_INPUT',
  429: 'RATE_LIMITED',
  501: 'NOT_IMPLEMENTED',
  503: 'SERVICE_UNAVAILABLE',
};

export function httpStatusOf(error: errors.AppError): number {
  return STATUS.get(error.constructor) ?? 500;
}

export function graphqlCodeOf(status: number): string {
  return GRAPHQL_CODES[status] ?? 'INTERNAL_SERVER_ERROR';
}

/** The seconds a client should wait before retrying, where the error says (429, some 503s, a 409 of a request still in flight). */
export function retryAfterOf(error: errors.AppError): number | undefined {
  if (error instanceof errors.TooManyRequestsError || error instanceof errors.ServiceUnavailableError || error instanceof errors.ConflictError) {
    return error.retryAfterSeconds;
  }
  return undefined;
}

/** A database fault that is not the request's doing: answered 503 with Retry-After. */
export interface DatabaseFault {
  readonly message: string;
  readonly retryAfterSeconds: number;
}

export function databaseFaultOf(error: unknown): DatabaseFault | undefined {
  if (isLockWaitTimeout(error)) {
    // Still waiting after inTransaction's runs: one transaction has held a record this one needs for long.
    return { message: 'Another change has held records this one needs for several seconds; nothing was changed. Try again shortly.', retryAfterSeconds: 5 };
  }
  if (isRetryableTransactionError(error)) {
    // Still a deadlock victim after inTransaction's retries: the whole transaction was rolled back.
    return { message: 'Too many concurrent changes to the same records; nothing was changed. Try again shortly.', retryAfterSeconds: 1 };
  }
  if (isConnectionError(error)) return { message: 'The service is temporarily unavailable. Try again shortly.', retryAfterSeconds: 5 };
  // A disk full or read-only: an operator's fix takes longer than a link's return.
  if (isStorageError(error)) return { message: 'The service is temporarily unavailable. Try again shortly.', retryAfterSeconds: 30 };
  // This instance is a new version whose migrations are not applied yet (a release under way).
  if (isSchemaBehind(error)) return { message: 'The service is being upgraded. Try again shortly.', retryAfterSeconds: 10 };
  return undefined;
}
