/** Named schemas of the document as TypeScript types: `Schema<'Article'>`. */
import type { components } from '../../generated/openapi.generated.js';

export type SchemaName = keyof components['schemas'];
export type Schema<N extends SchemaName> = components['schemas'][N];
