/**
 * Sends one delivery: a POST of the exact body with its headers, over node's http/https (the
 * stored URL's scheme and credentials are checked again, the connection's address by guardedLookup), a timeout, and no redirect followed (a 3xx is
 * an answer like any other non-2xx). The receiver's body is read only to free the socket.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPublicAddress, refuseForm } from './webhooks.targets.js';

export interface SendResult {
  /** The HTTP status, when the receiver answered. */
  status?: number;
  retryAfter?: string;
  /** Why nothing was answered: timeout, connection error, refused target. */
  error?: string;
  /** The target may not receive deliveries (its scheme, credentials or a private address): never to be retried. */
  refused?: boolean;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  allowHttp: boolean;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

export function send(url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<SendResult> {
  const target = new URL(url);
  // The URL was checked when it was saved; the configuration may have changed since (WEBHOOK_ALLOW_HTTP switched off).
  const refusal = refuseForm(target, options.allowHttp);
  if (refusal) return Promise.resolve({ error: `${refusal.slice(0, -1)}; not delivered.`, refused: true });
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return Promise.resolve({ error: `${host} is a private address; not delivered`, refused: true });
  }
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const request = transport.request(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body).toString(), 'user-agent': '3pl-webhooks/1.0', ...headers },
        lookup: guardedLookup(options.allowPrivate) as never,
        timeout: options.timeoutMs,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) response.destroy();
        });
        const done = (): void => {
          const retryAfter = response.headers['retry-after'];
          finish({ status: response.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
        };
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const deadline = setTimeout(() => {
      request.destroy();
      finish({ error: `No answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`No answer within ${options.timeoutMs} ms`)));
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(deadline);
      finish({ error: error.message.slice(0, 450), refused: error.code === 'EPRIVATETARGET' });
    });
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
