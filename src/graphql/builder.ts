/** The Pothos schema builder. It defines no types: each component adds its own (components/*\/*.graphql.ts). */
import SchemaBuilder from '@pothos/core';
import type { GraphQLContext } from './context.js';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: { DateTime: { Input: string; Output: string } };
}>({ defaultFieldNullability: false });

builder.scalarType('DateTime', {
  description: 'An ISO 8601 time in UTC with six fraction digits: 2026-11-21T10:00:00.000000Z.',
  serialize: (value) => value,
  parseValue: (value) => String(value),
});

builder.queryType({ description: 'Reads of the company in X-Company-Id.' });
