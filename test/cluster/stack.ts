/**
 * What the cluster test runs: a 3-node Galera cluster (or, when Galera cannot start, the MariaDB
 * on 3306 with a database of its own and two instances), the schema migrated once, an API
 * instance per node (WORKER=off), two webhook workers on nodes 1 and 2, Redis on 6379 under a
 * prefix of this run, HAProxy with the repository's configuration, and a webhook receiver.
 */
import { createServer } from 'node:net';
import path from 'node:path';
import type { Knex } from 'knex';
import { createDb } from '../../src/platform/db/database.js';
import { projectRoot } from '../../src/platform/project-root.js';
import { migrateLatest } from '../../db/migrations/index.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { GaleraCluster, type GaleraNode } from './galera.js';
import { startHaproxy, type Haproxy } from './haproxy.js';
import { Processes, tail, type Child } from './processes.js';
import { log, poll } from './report.js';

export const DATABASE = 'tpl_cluster';
const quiet = { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined };

export interface Instance {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  /** The Galera node it uses (none in the fallback). */
  readonly node?: GaleraNode;
  readonly child: Child;
}

export interface StackOptions {
  portBase: number;
  redisUrl: string;
  redisPrefix: string;
  /** Galera nodes up and synced, each. */
  startTimeoutMs: number;
}

export interface Stack {
  readonly mode: 'galera' | 'fallback';
  readonly galera?: GaleraCluster;
  /** The database as node 1 (or the plain server) sees it: set-up and checks. */
  readonly db: Knex;
  /** The database as each instance's node sees it. */
  readonly nodeDbs: Knex[];
  readonly instances: Instance[];
  readonly workers: Child[];
  readonly haproxy: Haproxy;
  readonly receiver: Receiver;
  readonly options: StackOptions;
  databaseUrl(node?: GaleraNode): string;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function requireFreePorts(ports: number[]): Promise<void> {
  const taken = [];
  for (const port of ports) if (!(await portFree(port))) taken.push(port);
  if (taken.length > 0) throw new Error(`Ports ${taken.join(', ')} are taken on 127.0.0.1; set CLUSTER_PORT_BASE to another range (now it uses the 60 ports from it).`);
}

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
  return res?.status === 200;
}

const TSX_IMPORT = ['--import', 'tsx'];

export class StackBuilder {
  private galera?: GaleraCluster;
  private dbs: Knex[] = [];
  receiver?: Receiver;

  constructor(readonly processes: Processes, readonly options: StackOptions) {}

  private baseEnv(): Record<string, string> {
    return {
      APP_ENV: 'cluster-test',
      REDIS_URL: this.options.redisUrl,
      REDIS_PREFIX: this.options.redisPrefix,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      STORAGE_PATH: path.join(this.processes.dir, 'storage'),
    };
  }

  /** The Galera cluster; false (with the reason logged) when it cannot start. */
  async startGalera(): Promise<boolean> {
    const base = this.options.portBase;
    await requireFreePorts([1, 2, 3].flatMap((i) => [base + i, base + 10 + i, base + 20 + i, base + 30 + i]));
    this.galera = new GaleraCluster(this.processes, (i) => ({ sql: base + i, galera: base + 10 + i, ist: base + 20 + i, sst: base + 30 + i }));
    try {
      const started = Date.now();
      await this.galera.start(this.options.startTimeoutMs);
      log(`Galera: 3 nodes synced in ${((Date.now() - started) / 1000).toFixed(1)} s (SQL ports ${base + 1}-${base + 3})`);
      return true;
    } catch (error) {
      log(`Galera could not start: ${(error as Error).message}`);
      await this.galera.stop();
      this.galera = undefined;
      return false;
    }
  }

  databaseUrl(node?: GaleraNode): string {
    return node ? `mysql://root@127.0.0.1:${node.ports.sql}/${DATABASE}` : `mysql://root@127.0.0.1:3306/${DATABASE}_${process.pid}`;
  }

  private async createDatabase(): Promise<void> {
    const server = this.galera ? `mysql://root@127.0.0.1:${this.galera.nodes[0]!.ports.sql}/` : 'mysql://root@127.0.0.1:3306/';
    const name = new URL(this.databaseUrl(this.galera?.nodes[0])).pathname.slice(1);
    const admin = createDb(server, { poolMax: 1, log: quiet });
    try {
      await admin.raw(`drop database if exists \`${name}\``);
      await admin.raw(`create database \`${name}\` character set utf8mb4 collate utf8mb4_unicode_ci`);
    } finally {
      await admin.destroy();
    }
    // DDL once, on one node: Galera replicates it (total order isolation) to the others.
    const db = createDb(this.databaseUrl(this.galera?.nodes[0]), { statementTimeoutMs: 0, log: quiet });
    try {
      await migrateLatest(db);
    } finally {
      await db.destroy();
    }
  }

  async dropFallbackDatabase(): Promise<void> {
    if (this.galera) return;
    const admin = createDb('mysql://root@127.0.0.1:3306/', { poolMax: 1, log: quiet });
    await admin.raw(`drop database if exists \`${DATABASE}_${process.pid}\``).catch(() => undefined);
    await admin.destroy();
  }

  async build(): Promise<Stack> {
    const base = this.options.portBase;
    await requireFreePorts([41, 42, 43, 50].map((n) => base + n));
    await this.createDatabase();
    const nodes: Array<GaleraNode | undefined> = this.galera ? this.galera.nodes : [undefined, undefined];
    const instances: Instance[] = nodes.map((node, i) => {
      const port = base + 41 + i;
      const env = { ...this.baseEnv(), DATABASE_URL: this.databaseUrl(node), PORT: String(port), HOST: '127.0.0.1', APP_URL: `http://127.0.0.1:${base + 50}`, WORKER: 'off', TRUST_PROXY: 'loopback', RATE_LIMIT_DATA_PER_MINUTE: '1000000' };
      const child = this.processes.start(`api${i + 1}`, process.execPath, [...TSX_IMPORT, 'src/main.ts'], env, projectRoot);
      return { name: `api${i + 1}`, url: `http://127.0.0.1:${port}`, port, node, child };
    });
    const workerNodes = this.galera ? [this.galera.nodes[0], this.galera.nodes[1]] : [undefined, undefined];
    const workers = workerNodes.map((node, i) =>
      this.processes.start(`worker${i + 1}`, process.execPath, [...TSX_IMPORT, 'src/worker.ts'], { ...this.baseEnv(), DATABASE_URL: this.databaseUrl(node), WORKER_POLL_MS: '200', WEBHOOK_TIMEOUT_MS: '5000', LOG_LEVEL: 'info' }, projectRoot),
    );
    for (const instance of instances) {
      const took = await poll(async () => {
        if (instance.child.exited) throw new Error('exited');
        return httpOk(`${instance.url}/readyz`);
      }, 120_000, 250);
      if (took === undefined) throw new Error(`${instance.name} did not become ready:\n${tail(instance.child)}`);
    }
    // Two instances in the fallback: the third server of the configuration points at a port where nothing listens.
    const addresses = [0, 1, 2].map((i) => `127.0.0.1:${instances[i]?.port ?? base + 49}`);
    const haproxy = startHaproxy(this.processes, base + 50, addresses);
    const expected = instances.length;
    const up = await poll(async () => Object.values(await haproxy.servers()).filter((s) => s === 'UP').length === expected, 30_000, 250);
    if (up === undefined) throw new Error(`HAProxy did not see the ${expected} instances UP: ${JSON.stringify(await haproxy.servers().catch(() => ({})))}\n${tail(haproxy.child)}`);
    if (!this.galera) await poll(async () => (await haproxy.servers()).api3 === 'DOWN', 30_000, 250);
    for (const worker of workers) if (worker.exited) throw new Error(`${worker.name} exited:\n${tail(worker)}`);
    this.receiver = await startReceiver();
    const db = createDb(this.databaseUrl(this.galera?.nodes[0]), { poolMax: 10, log: quiet });
    const nodeDbs = instances.map((i) => createDb(this.databaseUrl(i.node), { poolMax: 2, log: quiet }));
    this.dbs = [db, ...nodeDbs];
    return {
      mode: this.galera ? 'galera' : 'fallback',
      galera: this.galera,
      db,
      nodeDbs,
      instances,
      workers,
      haproxy,
      receiver: this.receiver,
      options: this.options,
      databaseUrl: (node) => this.databaseUrl(node),
    };
  }

  async teardown(): Promise<void> {
    await Promise.allSettled(this.dbs.map((db) => db.destroy()));
    await this.receiver?.close().catch(() => undefined);
    // Everything but the database nodes first, so that nothing is left waiting on them.
    const nodes = new Set(this.galera?.nodes.map((n) => n.child));
    await Promise.all(this.processes.children.filter((c) => !nodes.has(c)).map((c) => this.processes.stop(c)));
    await this.galera?.stop();
    await this.processes.stopAll();
    await this.dropFallbackDatabase();
  }
}
