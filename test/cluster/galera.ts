/**
 * A MariaDB Galera cluster on this machine: node i listens on 127.0.0.1 (SQL, Galera, IST and SST
 * ports of its own) with a data folder of its own in the run folder, as the mysql user (the rsync
 * state transfer runs as the server's user). Node 1 bootstraps the cluster; the others join by a
 * state transfer (SST, rsync). A node that was killed restarts from the position InnoDB recovered
 * (mariadbd --wsrep-recover, as galera_recovery does), so that it catches up by an incremental
 * transfer (IST) from the others' gcache when it can.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createDb } from '../../src/platform/db/database.js';
import type { Child, Processes } from './processes.js';
import { log, poll } from './report.js';

const run = promisify(execFile);
const MARIADBD = '/usr/sbin/mariadbd';
export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so';

export interface NodePorts {
  sql: number;
  galera: number;
  ist: number;
  sst: number;
}

export interface GaleraNode {
  readonly index: number;
  readonly ports: NodePorts;
  readonly dir: string;
  child?: Child;
}

function mysqlUid(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('mysql:'));
  if (!line) throw new Error('There is no mysql user (the mariadb-server package creates it).');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export class GaleraCluster {
  readonly nodes: GaleraNode[];

  constructor(private readonly processes: Processes, portOf: (node: number) => NodePorts, count = 3) {
    this.nodes = Array.from({ length: count }, (_, i) => ({ index: i + 1, ports: portOf(i + 1), dir: path.join(processes.dir, `node${i + 1}`) }));
  }

  private options(node: GaleraNode, clusterAddress: string): string[] {
    const { ports } = node;
    return [
      '--no-defaults',
      '--user=mysql',
      `--datadir=${node.dir}/data`,
      `--socket=${node.dir}/mysqld.sock`,
      `--pid-file=${node.dir}/mysqld.pid`,
      `--log-error=${node.dir}/error.log`,
      `--port=${ports.sql}`,
      '--bind-address=127.0.0.1',
      '--skip-name-resolve',
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_unicode_ci',
      '--max-connections=400',
      // What Galera needs: row-based replication, InnoDB, interleaved auto-increment locks.
      '--binlog-format=ROW',
      '--default-storage-engine=InnoDB',
      '--innodb-autoinc-lock-mode=2',
      // Small and quick for a test machine.
      '--innodb-buffer-pool-size=64M',
      '--innodb-log-file-size=16M',
      '--innodb-flush-log-at-trx-commit=2',
      '--performance-schema=OFF',
      '--wsrep-on=ON',
      `--wsrep-provider=${GALERA_PROVIDER}`,
      '--wsrep-cluster-name=tpl-cluster-test',
      `--wsrep-cluster-address=${clusterAddress}`,
      `--wsrep-node-address=127.0.0.1:${ports.galera}`,
      `--wsrep-node-name=node${node.index}`,
      `--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${ports.galera};ist.recv_addr=127.0.0.1:${ports.ist};gcache.size=128M`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${ports.sst}`,
      '--wsrep-slave-threads=2',
    ];
  }

  private get clusterAddress(): string {
    return `gcomm://${this.nodes.map((n) => `127.0.0.1:${n.ports.galera}`).join(',')}`;
  }

  url(node: GaleraNode, database = ''): string {
    return `mysql://root@127.0.0.1:${node.ports.sql}/${database}`;
  }

  /** Bootstraps node 1, then joins the others (in parallel); throws with the node's log when one does not come up. */
  async start(timeoutMs: number): Promise<void> {
    const { uid, gid } = mysqlUid();
    for (const node of this.nodes) {
      mkdirSync(path.join(node.dir, 'data'), { recursive: true });
      chownSync(node.dir, uid, gid);
      chownSync(path.join(node.dir, 'data'), uid, gid);
    }
    const first = this.nodes[0]!;
    await run('mariadb-install-db', ['--no-defaults', `--datadir=${first.dir}/data`, '--user=mysql', '--auth-root-authentication-method=normal', '--skip-test-db', '--innodb-log-file-size=16M'], { timeout: 120_000 });
    first.child = this.processes.start('galera-node1', MARIADBD, [...this.options(first, 'gcomm://'), '--wsrep-new-cluster']);
    await this.waitSynced(first, timeoutMs);
    for (const node of this.nodes.slice(1)) node.child = this.processes.start(`galera-node${node.index}`, MARIADBD, this.options(node, this.clusterAddress));
    await Promise.all(this.nodes.slice(1).map((node) => this.waitSynced(node, timeoutMs)));
  }

  /** wsrep_local_state_comment of the node, or undefined when it does not answer. */
  async state(node: GaleraNode): Promise<{ state: string; size: number; ready: boolean } | undefined> {
    const db = createDb(this.url(node), { poolMax: 1, statementTimeoutMs: 3000, log: { warn: () => undefined, error: () => undefined } });
    try {
      const [rows] = (await db.raw("show global status where variable_name in ('wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_ready')")) as [Array<{ Variable_name: string; Value: string }>];
      const value = (name: string) => rows.find((r) => r.Variable_name.toLowerCase() === name)?.Value ?? '';
      return { state: value('wsrep_local_state_comment'), size: Number(value('wsrep_cluster_size')), ready: value('wsrep_ready') === 'ON' };
    } catch {
      return undefined;
    } finally {
      await db.destroy();
    }
  }

  async waitSynced(node: GaleraNode, timeoutMs: number): Promise<number> {
    const took = await poll(async () => {
      if (node.child?.exited) throw new Error('exited');
      return (await this.state(node))?.state === 'Synced';
    }, timeoutMs, 250);
    if (took === undefined) {
      const errors = existsSync(`${node.dir}/error.log`) ? readFileSync(`${node.dir}/error.log`, 'utf8').trimEnd().split('\n').slice(-12).join('\n') : '(no error log)';
      throw new Error(`Galera node ${node.index} did not reach Synced within ${timeoutMs} ms${node.child?.exited ? ' (it exited)' : ''}:\n${errors}`);
    }
    return took;
  }

  /** Kills the node's server at once (SIGKILL), as a crash or a pulled plug. */
  async kill(node: GaleraNode): Promise<void> {
    if (node.child) await this.processes.stop(node.child, 'SIGKILL');
  }

  /** Restarts a killed node from its recovered position; answers how it caught up (IST or SST) and how long it took. */
  async restart(node: GaleraNode, timeoutMs: number): Promise<{ transfer: 'IST' | 'SST' | 'unknown'; ms: number }> {
    const started = Date.now();
    const recoverLog = `${node.dir}/recover.log`;
    writeFileSync(recoverLog, '');
    const { uid, gid } = mysqlUid();
    chownSync(recoverLog, uid, gid);
    await run(MARIADBD, [...this.options(node, this.clusterAddress), '--wsrep-recover', `--log-error=${recoverLog}`], { timeout: 120_000 }).catch(() => undefined);
    const position = /Recovered position: ([0-9a-f-]+:-?\d+)/.exec(readFileSync(recoverLog, 'utf8'))?.[1];
    const before = readFileSync(`${node.dir}/error.log`, 'utf8').length;
    const args = [...this.options(node, this.clusterAddress), ...(position ? [`--wsrep-start-position=${position}`] : [])];
    node.child = this.processes.start(`galera-node${node.index}-restarted`, MARIADBD, args);
    await this.waitSynced(node, timeoutMs);
    const since = readFileSync(`${node.dir}/error.log`, 'utf8').slice(before);
    const transfer = /IST received/.test(since) ? 'IST' : /SST (received|succeeded)|State transfer .* complete/i.test(since) ? 'SST' : 'unknown';
    log(`  node ${node.index} rejoined from ${position ?? 'an unknown position'} by ${transfer}`);
    return { transfer, ms: Date.now() - started };
  }

  async stop(): Promise<void> {
    // The joiners first, the bootstrap node last, so that each leaves cleanly.
    for (const node of [...this.nodes].reverse()) if (node.child) await this.processes.stop(node.child, 'SIGTERM', 30_000);
  }
}
