/**
 * The real server process (`node --import tsx src/main.ts`) for the shutdown and timeout tests,
 * on a temporary SQLite file seeded with the demo (`bin/tpl.ts seed-demo`), on a free port.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connect } from 'node:net';
import { closedPort } from '../helpers/net.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEMO_LOGIN = { email: 'ops@demo.test', password: 'demo-password' };
/** Acme Foods, a client of the demo provider. */
export const ACME = 2;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Epoch ms. */
  at: number;
}

export interface ServerProcess {
  readonly port: number;
  readonly child: ChildProcess;
  readonly dbFile: string;
  output(): string;
  readonly exited: Promise<Exit>;
  /** SIGKILL if still running (after hooks). */
  kill(): Promise<void>;
}

const folders: string[] = [];
let template: Promise<string> | undefined;

/** A seeded demo database, made once per run; each server gets its own copy. */
function seededTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tpl-faults-'));
    folders.push(dir);
    const file = path.join(dir, 'template.sqlite');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/tpl.ts', 'seed-demo'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: `sqlite:${file}` },
    });
    return file;
  })();
  return template;
}

/** A plain HTTP request without keep-alive: its status and body, or the socket error's code. */
export function call(
  port: number,
  method: string,
  urlPath: string,
  options: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      { host: '127.0.0.1', port, method, path: urlPath, agent: false, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function waitUntilReady(server: ServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`The server exited at start:\n${server.output()}`);
    const ok = await call(server.port, 'GET', '/up', { timeoutMs: 1000 }).then((r) => r.status === 200, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`The server did not answer /up within ${timeoutMs} ms:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tpl-faults-'));
  folders.push(dir);
  const dbFile = path.join(dir, 'db.sqlite');
  copyFileSync(await seededTemplate(), dbFile);
  const port = await closedPort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${dbFile}`,
      STORAGE_PATH: path.join(dir, 'storage'),
      LOG_LEVEL: 'warn',
      WORKER: 'in-process',
      RATE_LIMIT_DATA_PER_MINUTE: '1000000',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
      RATE_LIMIT_AUTH_PER_ADDRESS_PER_MINUTE: '1000000',
      RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const server: ServerProcess = {
    port,
    child,
    dbFile,
    output: () => chunks.join(''),
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
  try {
    await waitUntilReady(server, 30_000);
  } catch (error) {
    await server.kill();
    throw error;
  }
  return server;
}

export async function login(port: number): Promise<string> {
  const res = await call(port, 'POST', '/api/auth/token', { body: DEMO_LOGIN });
  if (res.status !== 200) throw new Error(`Login answered ${res.status}: ${res.body}`);
  return (JSON.parse(res.body) as { token: string }).token;
}

export function removeFolders(): void {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  template = undefined;
}

/** A TCP connection a test writes raw HTTP on, byte by byte if it likes. */
export interface RawConnection {
  write(text: string): void;
  /** What the server sent, and when it closed the connection (epoch ms). */
  readonly closed: Promise<{ at: number; text: string }>;
  /** Closes the client's side (FIN), as a client that stops sending does; the answer can still arrive. */
  end(): void;
  destroy(): void;
}

export async function rawConnection(port: number): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<{ at: number; text: string }>((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ at: Date.now(), text: Buffer.concat(chunks).toString('utf8') }));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    write: (text) => {
      if (!socket.destroyed) socket.write(text);
    },
    closed,
    end: () => socket.end(),
    destroy: () => socket.destroy(),
  };
}
