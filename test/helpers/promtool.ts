/**
 * `promtool check metrics` (Debian's prometheus package) on a text exposition. If promtool is
 * missing, it is installed first (test/helpers/ensure-promtool.sh: apt-get install -y prometheus);
 * if that fails the test fails with the reason, under CI=true and elsewhere alike (never a skip).
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ENSURE_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ensure-promtool.sh');
const PROMTOOL = process.env.PROMTOOL_PATH ?? 'promtool';

let ensured: Promise<void> | undefined;

/** Makes sure promtool runs (installing it with apt-get when missing). */
export function ensurePromtool(): Promise<void> {
  ensured ??= new Promise((resolve, reject) => {
    const result = spawnSync('bash', [ENSURE_SCRIPT], { encoding: 'utf8', env: process.env, timeout: 300_000 });
    if (result.status === 0) resolve();
    else reject(new Error(`promtool is missing and could not be installed (exit ${result.status}): ${(result.stderr ?? '').slice(-2000)}`));
  });
  return ensured;
}

/** What `promtool check metrics` says of `text`: its exit code and its complaints (empty when it accepts it). */
export async function promtoolCheckMetrics(text: string): Promise<{ code: number | null; output: string }> {
  await ensurePromtool();
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: output.trim() }));
    child.stdin.end(text);
  });
}
