/**
 * The types the ERP scenario is written against. In the project (and so in `npx tsc --noEmit` on a
 * fresh clone) they are the committed `make codegen` output; the SDK test typechecks the scenario
 * again with this module replaced by the types it generated from the served /openapi.json
 * (generate.ts `typecheck`, `redirect`).
 */
export type { components, operations, paths } from '../../src/generated/openapi.generated.js';
