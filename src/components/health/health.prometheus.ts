/** The health object in Prometheus text exposition, beside the app's request and process metrics. */
import { Gauge, type Registry } from 'prom-client';
import type { Schema } from '../../platform/openapi/schemas.js';

interface HealthGauges {
  up: Gauge;
  check: Gauge<'check'>;
  heartbeatAge: Gauge<'name'>;
}

const gaugesByRegistry = new WeakMap<Registry, HealthGauges>();

function gaugesOf(registry: Registry): HealthGauges {
  let gauges = gaugesByRegistry.get(registry);
  if (!gauges) {
    gauges = {
      up: new Gauge({ name: 'tpl_up', help: 'Whether the service is up: the database answers (1) or not (0).', registers: [registry] }),
      check: new Gauge({ name: 'tpl_health_check', help: 'Whether a health check passes (1) or fails (0).', labelNames: ['check'], registers: [registry] }),
      heartbeatAge: new Gauge({ name: 'tpl_heartbeat_age_seconds', help: 'Seconds since a heartbeat last pinged.', labelNames: ['name'], registers: [registry] }),
    };
    gaugesByRegistry.set(registry, gauges);
  }
  return gauges;
}

export async function renderPrometheus(registry: Registry, health: Schema<'Health'>, now = Date.now()): Promise<string> {
  const gauges = gaugesOf(registry);
  gauges.up.set(health.status === 'down' ? 0 : 1);
  for (const [check, passes] of Object.entries(health.checks)) gauges.check.set({ check }, passes ? 1 : 0);
  gauges.heartbeatAge.reset();
  for (const item of health.heartbeats.items) {
    if (item.last_ping_at_ms !== null) gauges.heartbeatAge.set({ name: item.name }, Math.max(0, (now - item.last_ping_at_ms) / 1000));
  }
  return registry.metrics();
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
