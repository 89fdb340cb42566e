/**
 * The health object in Prometheus text exposition (`?format=prometheus`): the checks just run, as
 * gauges of their own registry, and nothing else. The health routes answer without a token, so
 * they never carry the process's metrics (request durations per operation, GraphQL operation names
 * from every tenant): those are GET /metrics's, which stays inside the network.
 */
import { Gauge, Registry } from 'prom-client';
import type { Schema } from '../../platform/openapi/schemas.js';

export { PROMETHEUS_CONTENT_TYPE } from '../../platform/metrics.js';

function healthRegistry(health: Schema<'Health'>, now: number): Registry {
  const registry = new Registry();
  const registers = [registry];
  const up = new Gauge({ name: 'tpl_up', help: 'Whether the service is up: the database answers (1) or not (0).', registers });
  const check = new Gauge({ name: 'tpl_health_check', help: 'Whether a health check passes (1) or fails (0).', labelNames: ['check'], registers });
  const heartbeatAge = new Gauge({ name: 'tpl_heartbeat_age_seconds', help: 'Seconds since a heartbeat last pinged.', labelNames: ['name'], registers });
  up.set(health.status === 'down' ? 0 : 1);
  for (const [name, passes] of Object.entries(health.checks)) check.set({ check: name }, passes ? 1 : 0);
  for (const item of health.heartbeats.items) {
    if (item.last_ping_at_ms !== null) heartbeatAge.set({ name: item.name }, Math.max(0, (now - item.last_ping_at_ms) / 1000));
  }
  return registry;
}

export function renderPrometheus(health: Schema<'Health'>, now = Date.now()): Promise<string> {
  return healthRegistry(health, now).metrics();
}
