/**
 * The document leaves `allowReserved` off free-text query parameters (a search, a code, a GraphQL
 * query), so that a generated client or the reference's try-it percent-encodes `&`, `#` or `+` in
 * them. The request validator's copy of every query parameter takes reserved characters all the
 * same, for two reasons:
 * - a free-text value written by hand with the reserved characters that parse is taken
 *   (`internal_code=PO/A:1`);
 * - in any other parameter such a value is no value of its schema (`8,9` is no integer,
 *   `2027-01-01T00:00:00Z` no date, `*` none of the event types), and the schema says so, listed
 *   with every other problem of the request. The validator's own check threw "must be url
 *   encoded" at the first such parameter, before it read the others.
 */
export type ParameterNode = { $ref?: string; in?: string; allowReserved?: boolean };

/** Marks `parameter` (the validator's copy) to take reserved characters when it is a query parameter. */
export function acceptReservedInQuery(parameter: ParameterNode | undefined): void {
  if (parameter?.in === 'query') parameter.allowReserved = true;
}
