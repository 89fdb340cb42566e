/** The webhook worker driven by a test. */
/**
 * Runs the worker's rounds until one leaves nothing for the next (a round fans out and sends a
 * bounded number, so a database that earlier suites filled takes several).
 */
export async function drain(worker: { runOnce(): Promise<{ busy: boolean }> }, maxRounds = 200): Promise<void> {
  for (let round = 0; round < maxRounds; round++) if (!(await worker.runOnce()).busy) return;
  throw new Error(`The webhook worker was still busy after ${maxRounds} rounds`);
}
