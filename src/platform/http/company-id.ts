/**
 * X-Company-Id read as a company id: decimal digits (leading zeros allowed, as in every integer
 * parameter: `02` is 2) worth 1 to 2147483647, around optional spaces. The tenancy step refuses
 * other values; the rate limits count by the id, so `2` and `02` are one bucket.
 */
const DIGITS = /^[0-9]+$/;

/** The company id `raw` names, or undefined when it is not one. */
export function companyIdOf(raw: string): number | undefined {
  const value = raw.trim();
  if (!DIGITS.test(value)) return undefined;
  const id = Number(value);
  return id >= 1 && id <= 2_147_483_647 ? id : undefined;
}
