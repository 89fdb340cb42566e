/** The processes the benchmark starts: the API as production runs it, the padded API, the baseline. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { projectRoot } from '../../src/platform/project-root.js';

export interface Started {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

const dist = path.join(projectRoot, 'dist');
export const SCRIPTS = {
  /** The production entry: compiled main.js. */
  api: path.join(dist, 'src', 'main.js'),
  /** createApp on the bundled or a padded document (BENCH_PADDING). */
  app: path.join(dist, 'test', 'bench', 'app-server.js'),
  baseline: path.join(dist, 'test', 'bench', 'baseline-server.js'),
} as const;

/**
 * The V8 flags production starts with: those of package.json's `start` script (`npm start`), so
 * the benchmark runs the server exactly as production does.
 */
export function productionNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Whether something accepts a TCP connection at host:port (within 2 s). */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.setTimeout(2000, () => (socket.destroy(), resolve(false)));
    socket.on('connect', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
}

/** Starts `script` with `env` on a free port and waits until it accepts connections. */
export async function startServer(name: string, script: string, env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...productionNodeFlags(), script], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  /** From listening until stop(): an exit then is a death under the bench. */
  let serving = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      // A server that dies under the bench says why before the bench fails on its missing process.
      if (serving) console.error(`${name} exited with ${code ?? signal}:\n${output}`);
      resolve();
    }),
  );
  const started = Date.now();
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
    if (Date.now() - started > 30_000) throw new Error(`${name} did not listen within 30 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  serving = true;
  return {
    name,
    port,
    pid: child.pid!,
    stop: async () => {
      serving = false;
      if (child.exitCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
