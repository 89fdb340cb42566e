/**
 * GET /api/health, /health and /up: one health object, as JSON or Prometheus text; GET /livez and
 * /readyz: the probes; GET /metrics: the process's metrics, read from memory (no query, no file).
 */
import type { HandlerInput, HandlerMap, Reply } from '../../platform/openapi/handler-types.js';
import { checkHealth, checkReadiness } from './health.service.js';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from './health.prometheus.js';

async function health(input: Pick<HandlerInput<'getHealth'>, 'query' | 'deps'>): Promise<Reply<'getHealth'>> {
  const result = await checkHealth(input.deps);
  const down = result.status === 'down';
  if (input.query.format === 'prometheus') {
    const body = await renderPrometheus(result);
    const headers = { 'Content-Type': PROMETHEUS_CONTENT_TYPE };
    return down ? { status: 503, body, contentType: 'text/plain', headers } : { status: 200, body, contentType: 'text/plain', headers };
  }
  return down ? { status: 503, body: result } : { status: 200, body: result };
}

export const healthHandlers = {
  getHealth: health,
  getSiteHealth: (input) => health(input),
  getUp: (input) => health(input),
  getLiveness: async () => ({ status: 200, body: { status: 'ok' } }),
  getMetrics: async ({ deps }) => ({
    status: 200,
    body: await deps.metrics.registry.metrics(),
    contentType: 'text/plain',
    headers: { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' },
  }),
  getReadiness: async ({ deps }) => {
    const readiness = await checkReadiness(deps);
    return readiness.status === 'ready' ? { status: 200, body: readiness } : { status: 503, body: readiness };
  },
} satisfies HandlerMap;
