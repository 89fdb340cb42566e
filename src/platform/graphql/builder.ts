/**
 * The Pothos schema builder. It defines no types: each component adds its own
 * (components/*\/*.graphql.ts). Every field gets its cost (cost.ts), which the cost limit counts
 * before a query runs (src/graphql/yoga.ts); a field may set its own with `complexity`.
 * Here, beneath the components that use it (with context.ts and cost.ts), as the REST side's handler
 * types are: src/graphql/ is the server above them, whose schema.ts imports every component's fields.
 */
import SchemaBuilder from '@pothos/core';
import { GraphQLError } from 'graphql';
import ComplexityPlugin from '@pothos/plugin-complexity';
import type { GraphQLContext } from './context.js';
import { fieldCost } from './cost.js';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: { DateTime: { Input: string; Output: string } };
}>({
  defaultFieldNullability: false,
  plugins: [ComplexityPlugin],
  // The limit is checked once per request before execution (useQueryCostLimit), not in each root resolver.
  complexity: { disabled: true, fieldComplexity: fieldCost },
});

builder.scalarType('DateTime', {
  description: 'An ISO 8601 time in UTC with six fraction digits: 2026-11-21T10:00:00.000000Z.',
  serialize: (value) => value,
  // A string (a variable of another JSON type is refused, as a literal of another type is);
  // its format is checked where the argument is read (inputTime), with REST's rule and message.
  parseValue: (value) => {
    if (typeof value !== 'string') throw new GraphQLError('A DateTime is a string, such as "2026-11-21T10:00:00Z".');
    return value;
  },
});

builder.queryType({ description: 'Reads of the company in X-Company-Id.' });
