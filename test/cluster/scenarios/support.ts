/** Small helpers of the scenarios. */
import type { Response, Test } from 'supertest';

/** The response, or undefined when the request failed outright (connection refused, contract broken: logged). */
export async function settled(test: Test): Promise<Response | undefined> {
  try {
    return await test;
  } catch (error) {
    const response = (error as { response?: Response }).response;
    if (!response) process.stdout.write(`  request failed: ${(error as Error).message.split('\n')[0]}\n`);
    return response ?? undefined;
  }
}

/** Status -> how many answered it ('none' for a request that got no answer). */
export function statusCounts(results: Array<{ status: number } | undefined>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) {
    const key = r ? String(r.status) : 'none';
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
