/** Driving a server with autocannon, and reading a process's memory from /proc. */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface Load {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** A fixed body, or one per request (writes that must not repeat). */
  body?: string | (() => string);
  /** Per request, when each request needs its own path; called before `body`, so a body may be the path's. */
  nextPath?: () => string;
}

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Answers by status, and connection errors and timeouts. */
  statuses: Record<string, number>;
  errors: number;
  /** The server's CPU time (user + system) per request, µs: the cost, whatever else the machine runs. */
  cpuUs: number;
}

/** Linux clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat times. */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used, ms. */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // After "pid (comm) ", utime and stime are the 12th and 13th fields.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

export const CONNECTIONS = 10;

/** Runs `load` against the server for `seconds`, or for `amount` requests. */
export async function drive(server: { port: number; pid: number }, load: Load, run: { seconds?: number; amount?: number }): Promise<Measured> {
  const { body, nextPath } = load;
  const cpuBefore = cpuMsOf(server.pid);
  const dynamic = typeof body === 'function' || nextPath !== undefined;
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections: CONNECTIONS,
    timeout: 30,
    // A run ends on autocannon's next sample, not when its last answer comes: at the default 1 s, a
    // run of `amount` requests lasted a whole number of seconds (1,300 deliveries in 3.2 s counted as
    // 4 s: 325 r/s), so requests/s of short runs moved by steps of 10-30 %.
    sampleInt: 50,
    ...(run.amount !== undefined ? { amount: run.amount } : { duration: run.seconds ?? 5 }),
    requests: [
      {
        method: load.method,
        path: load.path,
        headers: load.headers,
        ...(typeof body === 'string' ? { body } : {}),
        ...(dynamic
          ? {
              setupRequest: (request) => ({
                ...request,
                ...(nextPath ? { path: nextPath() } : {}),
                ...(typeof body === 'function' ? { body: body() } : {}),
              }),
            }
          : {}),
      },
    ],
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]));
  return {
    // Over the run's whole duration: autocannon's per-second average is wrong for runs under a second.
    rps: result.requests.total / Math.max(result.duration, 0.001),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    statuses,
    errors: result.errors + result.timeouts,
    cpuUs: ((cpuMsOf(server.pid) - cpuBefore) * 1000) / Math.max(result.requests.total, 1),
  };
}

/** Resident set size of a process now and its peak (VmHWM), in MB. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}
