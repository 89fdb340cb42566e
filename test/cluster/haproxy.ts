/** HAProxy with the repository's configuration (deploy/haproxy/haproxy.cfg), and its admin socket's view of the servers. */
import { connect } from 'node:net';
import path from 'node:path';
import { projectRoot } from '../../src/platform/project-root.js';
import type { Child, Processes } from './processes.js';

export const HAPROXY_CONFIG = path.join(projectRoot, 'deploy/haproxy/haproxy.cfg');

export interface Haproxy {
  readonly child: Child;
  readonly url: string;
  /** Server name -> status as HAProxy sees it (UP, DOWN, UP 1/2, ...). */
  servers(): Promise<Record<string, string>>;
  /** Server name -> requests it has been sent so far. */
  requests(): Promise<Record<string, number>>;
}

function ask(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let text = '';
    conn.setTimeout(3000, () => conn.destroy(new Error('HAProxy admin socket timed out')));
    conn.on('connect', () => conn.end(`${command}\n`));
    conn.on('data', (chunk) => (text += chunk));
    conn.on('end', () => resolve(text));
    conn.on('error', reject);
  });
}

type Stats = { columns: string[]; rows: string[][] };

/** One column of the backend's servers: server name -> value. */
function column(stats: Stats, name: string): Record<string, string> {
  const at = (c: string) => stats.columns.indexOf(c);
  return Object.fromEntries(
    stats.rows.filter((r) => r[at('pxname')] === 'instances' && r[at('svname')] !== 'BACKEND').map((r) => [r[at('svname')]!, r[at(name)]!]),
  );
}

export function startHaproxy(processes: Processes, port: number, instances: string[]): Haproxy {
  const socket = path.join(processes.dir, 'haproxy.sock');
  const env = { TPL_LISTEN: `127.0.0.1:${port}`, TPL_STATS_SOCKET: socket, ...Object.fromEntries(instances.map((address, i) => [`TPL_API${i + 1}`, address])) };
  const child = processes.start('haproxy', 'haproxy', ['-db', '-f', HAPROXY_CONFIG], env);
  const stats = async (): Promise<Stats> => {
    const [header, ...rows] = (await ask(socket, 'show stat')).trim().split('\n');
    return { columns: header!.replace(/^# /, '').split(','), rows: rows.map((r) => r.split(',')) };
  };
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    servers: async () => column(await stats(), 'status'),
    requests: async () => Object.fromEntries(Object.entries(column(await stats(), 'stot')).map(([k, v]) => [k, Number(v)])),
  };
}
