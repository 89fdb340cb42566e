/**
 * Operations of the document whose area is not built yet: they answer 501
 * `{"message":"Not implemented"}` after authentication, tenancy and validation. Each area's issue
 * removed its operations from this list; test/catalog.test.ts keeps it honest. Every operation of
 * the document is implemented now.
 */
import type { OperationId } from './platform/openapi/document.js';

export const NOT_IMPLEMENTED: readonly OperationId[] = [];
