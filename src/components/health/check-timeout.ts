/** How long a health or readiness check may take before it counts as failed. */
export const CHECK_TIMEOUT_MS = 2000;

/** The check's answer, or `fallback` after CHECK_TIMEOUT_MS; the timer goes as soon as either is known. */
export function withTimeout<T>(work: Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), CHECK_TIMEOUT_MS).unref();
  });
  return Promise.race([work.catch(() => fallback), timeout]).finally(() => clearTimeout(timer));
}
