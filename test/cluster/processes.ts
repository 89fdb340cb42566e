/**
 * The child processes of the cluster test: each in a process group of its own (so that what it
 * starts goes with it), its output in a log file of the run folder, its pid in the run folder's
 * pids file, so that a later run removes what a killed run left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { log, poll } from './report.js';

export const RUN_PREFIX = 'tpl-cluster-';

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly logFile: string;
  exited: boolean;
}

export class Processes {
  readonly children: Child[] = [];

  constructor(readonly dir: string) {}

  start(name: string, command: string, args: string[], env: Record<string, string> = {}, cwd?: string): Child {
    const logFile = path.join(this.dir, `${name}.log`);
    const fd = openSync(logFile, 'a');
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd], detached: true });
    const entry: Child = { name, process: child, logFile, exited: false };
    child.on('exit', () => (entry.exited = true));
    child.on('error', (error) => {
      entry.exited = true;
      appendFileSync(logFile, `spawn failed: ${error.message}\n`);
    });
    if (child.pid) appendFileSync(path.join(this.dir, 'pids'), `${child.pid}\n`);
    this.children.push(entry);
    return entry;
  }

  /** Sends `signal` to the child's process group; with SIGTERM, SIGKILL follows after `graceMs`. */
  async stop(child: Child, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
    if (child.exited || !child.process.pid) return;
    killGroup(child.process.pid, signal);
    if (signal === 'SIGKILL') {
      await poll(() => child.exited, 5000, 50);
      return;
    }
    if ((await poll(() => child.exited, graceMs, 100)) === undefined) {
      killGroup(child.process.pid, 'SIGKILL');
      await poll(() => child.exited, 5000, 50);
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.children].reverse().map((child) => this.stop(child)));
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A run folder of its own, 0755 (the database nodes run as the mysql user), named after this process. */
export function runFolder(): string {
  const dir = path.join(tmpdir(), `${RUN_PREFIX}${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  return dir;
}

/** Ends the processes and removes the folders of earlier runs whose runner is gone (killed with SIGKILL, say). */
export function removeLeftovers(): void {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(RUN_PREFIX))) {
    const owner = Number(name.slice(RUN_PREFIX.length));
    if (!Number.isInteger(owner) || owner === process.pid || alive(owner)) continue;
    const dir = path.join(tmpdir(), name);
    const pids = existsSync(path.join(dir, 'pids')) ? readFileSync(path.join(dir, 'pids'), 'utf8').split('\n').filter(Boolean).map(Number) : [];
    for (const pid of pids) if (alive(pid)) killGroup(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    log(`Removed what an earlier cluster test (pid ${owner}) left behind: ${pids.length} processes, ${dir}`);
  }
}

/** The last lines of a child's log, to show why it failed. */
export function tail(child: Child, lines = 15): string {
  try {
    return readFileSync(child.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
