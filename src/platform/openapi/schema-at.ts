/**
 * The schemas of the bundled document that a value at a path of a request body meets, so that an
 * error about it can be worded from what the schema is (request validation reports only the path).
 */
import { resolvedSchema } from './document.js';

export interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  allOf?: SchemaNode[];
  additionalProperties?: boolean | SchemaNode;
  [keyword: string]: unknown;
}

/** A schema with its `$ref` followed, and the members of its `allOf` (a field described over a shared schema). */
function expand(node: SchemaNode | undefined): SchemaNode[] {
  const resolved = resolvedSchema(node);
  if (!resolved) return [];
  return [resolved, ...(resolved.allOf ?? []).flatMap(expand)];
}

function children(node: SchemaNode, segment: string): SchemaNode[] {
  const property = node.properties?.[segment];
  if (property) return [property];
  if (node.items && /^\d+$/.test(segment)) return [node.items];
  return typeof node.additionalProperties === 'object' ? [node.additionalProperties] : [];
}

/**
 * The schemas the value at `segments` below `root` meets (`['items', '0', 'quantity_um3pl']`), each
 * with its `$ref`s followed; none when the path leaves what the schema describes.
 */
export function schemasAt(root: SchemaNode | undefined, segments: readonly string[]): SchemaNode[] {
  let nodes = expand(root);
  for (const segment of segments) nodes = nodes.flatMap((node) => children(node, segment)).flatMap(expand);
  return nodes;
}
