/**
 * Headless Chromium for the browser tests: Debian's `chromium` driven by playwright-core. If it is
 * missing, the test installs it (test/browser/ensure-chromium.sh: apt-get install -y chromium); if
 * that fails the test fails with the reason, on CI and elsewhere alike (never a skip).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ENSURE_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ensure-chromium.sh');

/**
 * The closed network refuses outside connections: nothing of Chromium's own may try to reach out
 * (updates, sync, field trials, QUIC), so every request the page makes is the page's.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumInstalled(executable = CHROMIUM_PATH): boolean {
  try {
    accessSync(executable, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs ensure-chromium.sh; resolves with its exit code and the tail of its output. */
function runEnsureScript(executable: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [ENSURE_SCRIPT], { env: { ...process.env, CHROMIUM_PATH: executable }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => resolve({ code: null, output: `${output}\n${error.message}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Makes sure Chromium is installed (installing it with apt-get if not) and returns its path. */
export async function ensureChromium(executable = CHROMIUM_PATH): Promise<string> {
  if (chromiumInstalled(executable)) return executable;
  const { code, output } = await runEnsureScript(executable);
  if (code === 0 && chromiumInstalled(executable)) return executable;
  const where = process.env.CI === 'true' ? 'The CI machine must be able to run apt-get install -y chromium' : 'Install it with apt-get install -y chromium';
  throw new Error(
    `The browser test needs Chromium at ${executable}, which is missing, and installing it failed ` +
      `(test/browser/ensure-chromium.sh exited ${code ?? 'without starting'}). ${where} ` +
      `(or set CHROMIUM_PATH).\n--- output of the installation ---\n${output.trim()}`,
  );
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a new, empty profile directory, removed on close. */
export async function launchChromium(executable: string): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'tpl-chromium-profile-'));
  // playwright-core takes the profile directory as an argument (it refuses --user-data-dir in args).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: executable,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1280, height: 900 },
    timeout: 30_000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
