/**
 * node:http's client errors: a connection whose bytes are not HTTP (400), whose headers (431) or
 * chunk extensions (413) are too large, or whose request did not arrive within HTTP_HEADERS_TIMEOUT_MS or, its body,
 * HTTP_REQUEST_TIMEOUT_MS (408). Node answered them with a bare status line: no X-Request-Id (which
 * the document puts on every answer), no body, no log line, no metric, and a body cut by the
 * request timeout was logged as the client's own abort. Answered here as node would (only while
 * nothing of another answer was written, then the connection closed), with X-Request-Id and a JSON
 * message. A request that existed (its headers had arrived; its body timed out or was malformed)
 * is marked with the status (`clientErrorStatus`), so that the access log and the request-duration
 * histogram report it so; one that did not is logged here and counted in
 * `tpl_http_client_errors_total`. Timeouts are logged at warn (as a connection that broke off),
 * malformed requests at info (as 4xx). A connection the client reset or closed part-way gets
 * nothing: there is no one to answer.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';

const messages: Record<number, string> = {
  400: 'The request is not valid HTTP/1.1.',
  408: 'The request did not arrive in full in time: send it again, whole.',
  413: 'The request body has chunk extensions that are too large.',
  431: 'The request headers are too large.',
};

/** What the log says of each status. */
export const CLIENT_ERROR_LINES: Readonly<Record<number, string>> = {
  400: 'request refused: not valid HTTP',
  408: 'request timed out',
  413: 'request refused: chunk extensions too large',
  431: 'request refused: headers too large',
};

/** The status node:http gives each client error (its own answers: 400 unless another fits). */
function statusOf(code: string | undefined): number {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 413;
  return 400;
}

/**
 * The client went away: it reset the connection, or closed its side part-way through a request
 * (an upload it gave up, a proxy's timeout), which the parser reports as an unexpected end. No
 * one reads an answer: a request under way is logged and counted as abandoned (499) when its
 * response closes, and headers cut off are not a protocol error of the client's.
 */
function wentAway(code: string | undefined): boolean {
  return code === 'ECONNRESET' || code === 'HPE_INVALID_EOF_STATE';
}

/** The raw answer: node's own when nothing was written, with our header and body. */
function answer(status: number, requestId: string): string {
  const body = JSON.stringify({ message: messages[status] });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`
  );
}

export function answerClientErrors(logger: Logger, metrics: Metrics): (error: Error & { code?: string }, socket: Duplex) => void {
  return (error, socket) => {
    if (wentAway(error.code) || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = statusOf(error.code);
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    const request = inFlight?.req as (IncomingMessage & Partial<Pick<Request, 'requestId' | 'clientErrorStatus'>>) | undefined;
    const requestId = request?.requestId ?? randomUUID();
    const answered = inFlight?.headersSent === true;
    if (!answered) socket.write(answer(status, requestId));
    if (request) {
      // The access log and the histogram report it (with this status) when its response closes.
      if (!answered) request.clientErrorStatus = status;
    } else {
      metrics.clientError(status);
      // A timeout at warn, as the access log writes a connection that broke off; malformed bytes at
      // info, as it writes 4xx (a scanner's garbage must not flood warn).
      logger[status === 408 ? 'warn' : 'info']({ requestId, status, code: error.code }, status === 408 ? 'request headers not received in time' : CLIENT_ERROR_LINES[status]!);
    }
    socket.destroy(error);
  };
}
