/** Prometheus metrics of one app: process metrics and a request-duration histogram per operation. */
import type { RequestHandler } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  readonly requestMetrics: RequestHandler;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tpl_' });
  // Gauges named *_total break Prometheus' naming rules (promtool check metrics); each is the
  // sum of a labelled gauge that stays (tpl_nodejs_active_handles, ...).
  for (const name of ['tpl_nodejs_active_handles_total', 'tpl_nodejs_active_requests_total', 'tpl_nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  const duration = new Histogram({
    name: 'tpl_http_request_duration_seconds',
    help: 'Duration of HTTP requests by operation and status.',
    labelNames: ['operation', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const requestMetrics: RequestHandler = (req, res, next) => {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      duration.observe(
        { operation: req.operation?.operationId ?? 'unmatched', method: req.method, status: String(res.statusCode) },
        Number(process.hrtime.bigint() - start) / 1e9,
      );
    });
    next();
  };
  return { registry, requestMetrics };
}
