/**
 * The closed set of errors services and middleware throw, each named for its condition. One
 * middleware (http/error-handler.ts) maps them to statuses and the contract's body.
 */

export type FieldErrors = Record<string, string[]>;

export abstract class AppError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Malformed request that is not a validation failure: bad JSON, a missing required header. */
export class BadRequestError extends AppError {}

export class UnauthenticatedError extends AppError {
  constructor() {
    // Refused credentials come in floods, and neither the 401 nor the log shows a stack: none is
    // captured (capturing one was 2.5 % of the CPU of a rejected request).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super('Unauthenticated.');
    Error.stackTraceLimit = stackTraceLimit;
  }
}

export class ForbiddenError extends AppError {}

export class NotFoundError extends AppError {}

export class MethodNotAllowedError extends AppError {
  constructor(
    message: string,
    readonly allow: string[],
  ) {
    super(message);
  }
}

/** A 409; `retryAfterSeconds` when the same request succeeds once the other one has finished. */
export class ConflictError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A 412: If-Match names another version than the resource now is; `etag` is the current one. */
export class PreconditionFailedError extends AppError {
  constructor(
    message: string,
    readonly etag: string,
  ) {
    super(message);
  }
}

export class PayloadTooLargeError extends AppError {}

export class UnsupportedMediaTypeError extends AppError {}

/** The request breaks the schema or a business rule (422), with messages per field. */
export class InputError extends AppError {
  constructor(
    readonly errors: FieldErrors,
    message = 'The given data was invalid.',
  ) {
    super(message);
  }

  static field(path: string, message: string): InputError {
    return new InputError({ [path]: [message] }, message);
  }
}

export class TooManyRequestsError extends AppError {
  /** `what`: what there were too many of, as the message starts (`Too many requests`). */
  constructor(
    readonly retryAfterSeconds: number,
    what = 'Too many requests',
  ) {
    super(`${what}. Try again in ${retryAfterSeconds} seconds.`);
  }
}

export class NotImplementedError extends AppError {
  constructor() {
    super('Not implemented');
  }
}

export class ServiceUnavailableError extends AppError {
  /**
   * `refusedUnheard`: the request was refused before any of the work its rate limits count was
   * done (a login refused because too many password checks are queued: no password was checked),
   * so the limits give its count back (login-limits.ts).
   */
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
    readonly refusedUnheard = false,
  ) {
    super(message);
  }
}

/** Whether the answer is a 503 of a request refused before its counted work (res.locals, set by the error handler). */
export const REFUSED_UNHEARD = 'refusedUnheard';
