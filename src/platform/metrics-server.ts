/**
 * GET /metrics of a process that serves no API (the webhook worker run on its own): a bare
 * node:http server answering the process's registry as the API's `GET /metrics` does (text
 * exposition format, no caching, an X-Request-Id on every answer); any other request is a 404 or
 * 405 in JSON saying what it serves.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { PROMETHEUS_CONTENT_TYPE, type Metrics } from './metrics.js';

function json(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ message });
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function createMetricsServer(metrics: Pick<Metrics, 'registry'>): Server {
  return createServer((req, res) => {
    res.setHeader('X-Request-Id', randomUUID());
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return json(res, 404, 'Not found: this process serves GET /metrics only.');
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, 'Method not allowed: GET /metrics.', { Allow: 'GET, HEAD' });
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => json(res, 500, `The metrics could not be collected: ${String(error)}`),
    );
  });
}

/** Listens on `host:port`; resolves with the port bound (port 0 picks a free one), rejects on a port in use. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
