/**
 * The typed contract between the platform and the handlers: each handler takes the validated
 * input of its operation and answers one of the operation's success responses, typed from the
 * generated OpenAPI types. Errors are thrown (platform/errors.ts), never returned.
 */
import type { AppDeps } from '../app-deps.js';
import type { CompanyScope } from '../../kernel/company-scope.js';
import type { Role } from '../../kernel/access.js';
import type { Principal } from '../../kernel/identity.js';
import type { operations } from '../../generated/openapi.generated.js';
import type { OperationId } from './document.js';
import type { JsonText } from './json-text.js';
import type { StaticBody } from '../http/static-body.js';

export type { OperationId };

/** Who is calling and for which companies, as the request path resolved it. */
export interface RequestAuth {
  readonly principal: Principal;
  /** Set on operations that take X-Company-Id. */
  readonly scope?: CompanyScope;
  readonly role?: Role;
  /** The active modules of the company in scope (set with `scope`). */
  readonly activeModules?: ReadonlySet<string>;
}

export interface RequestInfo {
  readonly requestId: string;
  readonly ip: string;
  /** The path and query as requested (before coercion and defaults), for links. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

type Parameters<K extends OperationId> = operations[K]['parameters'];
type PathOf<K extends OperationId> = Parameters<K> extends { path: infer P } ? NonNullable<P> : Record<string, never>;
type QueryOf<K extends OperationId> = Parameters<K> extends { query?: infer Q } ? NonNullable<Q> : Record<string, never>;
type BodyOf<K extends OperationId> = operations[K] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : undefined;

export interface HandlerInput<K extends OperationId> {
  readonly params: PathOf<K>;
  readonly query: QueryOf<K>;
  readonly body: BodyOf<K>;
  readonly deps: AppDeps;
  readonly auth: RequestAuth | undefined;
  readonly request: RequestInfo;
}

type Responses<K extends OperationId> = operations[K]['responses'];
/** Handlers answer with success statuses, or another documented status that is not an error (health's 503). */
type ReplyStatus<K extends OperationId> = Extract<keyof Responses<K>, number>;
type ContentOf<R> = R extends { content: infer C } ? C : never;

/** One documented response of the operation: a JSON body, another documented content type, or none. */
export type Reply<K extends OperationId> = {
  [S in ReplyStatus<K>]: ContentOf<Responses<K>[S]> extends never
    ? { status: S; headers?: Record<string, string> }
    : ContentOf<Responses<K>[S]> extends { 'application/json': infer J }
      ?
          | { status: S; body: J | JsonText<J> | StaticBody; headers?: Record<string, string> }
          | { status: S; body: string; contentType: Exclude<keyof ContentOf<Responses<K>[S]>, 'application/json'>; headers?: Record<string, string> }
      :
          | { status: S; body: string; contentType: keyof ContentOf<Responses<K>[S]>; headers?: Record<string, string> }
          | { status: S; body: StaticBody; headers?: Record<string, string> };
}[ReplyStatus<K>];

export type OperationHandler<K extends OperationId> = (input: HandlerInput<K>) => Promise<Reply<K>>;

export type HandlerMap = { [K in OperationId]?: OperationHandler<K> };

/** A reply as the platform writes it. */
export interface AnyReply {
  status: number;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}
