/**
 * The document leaves `allowReserved` off free-text query parameters (a search, a code, a GraphQL
 * query), so that a generated client or the reference's try-it percent-encodes `&`, `#` or `+` in
 * them. The server still takes such a value written by hand with the reserved characters that
 * parse (`internal_code=PO/A:1`): the request validator's copy of a free-text parameter allows
 * them (the validator would refuse them, "must be url encoded").
 */
type SchemaNode = { type?: string; enum?: unknown[]; format?: string; items?: SchemaNode };
export type ParameterNode = { $ref?: string; in?: string; allowReserved?: boolean; schema?: SchemaNode };

/** A string, or a list of strings, of no enum or format. */
function freeText(schema: SchemaNode | undefined): boolean {
  const value = schema?.type === 'array' ? schema.items : schema;
  return value?.type === 'string' && value.enum === undefined && value.format === undefined;
}

/** Marks `parameter` (the validator's copy) to take reserved characters when it is a free-text query parameter. */
export function acceptReservedInFreeText(parameter: ParameterNode | undefined): void {
  if (parameter?.in === 'query' && freeText(parameter.schema)) parameter.allowReserved = true;
}
