/** The checks of the cluster test: each passes, fails (with what was seen) or is skipped (with why); one summary line at the end. */

export interface Check {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  detail: string;
}

export class Report {
  readonly checks: Check[] = [];
  /** Figures measured on the way (printed at the end and in docs/scaling.md). */
  readonly figures: Array<[string, string]> = [];

  pass(name: string, detail = ''): void {
    this.record({ name, outcome: 'passed', detail });
  }

  fail(name: string, detail: string): void {
    this.record({ name, outcome: 'failed', detail });
  }

  skip(name: string, why: string): void {
    this.record({ name, outcome: 'skipped', detail: why });
  }

  /** Passes when `ok`, fails with `detail` otherwise. */
  expect(name: string, ok: boolean, detail: string): boolean {
    if (ok) this.pass(name, detail);
    else this.fail(name, detail);
    return ok;
  }

  figure(name: string, value: string): void {
    this.figures.push([name, value]);
    log(`  figure: ${name}: ${value}`);
  }

  /** Runs a scenario; an exception fails it (and the run goes on with the next). */
  async scenario(name: string, work: () => Promise<void>): Promise<void> {
    log(`\n=== ${name} ===`);
    const started = Date.now();
    try {
      await work();
    } catch (error) {
      this.fail(`${name}: ran to the end`, (error as Error).stack ?? String(error));
    }
    this.figure(`${name}: duration`, `${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  private record(check: Check): void {
    this.checks.push(check);
    const mark = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip' }[check.outcome];
    log(`  ${mark} ${check.name}${check.detail ? ` (${check.detail})` : ''}`);
  }

  count(outcome: Check['outcome']): number {
    return this.checks.filter((c) => c.outcome === outcome).length;
  }
}

export function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Polls `condition` every `everyMs` until it holds; answers the ms it took, or undefined after `timeoutMs`. */
export async function poll(condition: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<number | undefined> {
  const started = Date.now();
  for (;;) {
    if (await Promise.resolve().then(condition).catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) return undefined;
    await sleep(everyMs);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
