/**
 * A query field that lists documents in scope by id, with the filters of their REST list:
 * `limit` (1 to 100, default 25, as REST's per_page; BAD_USER_INPUT outside), the list's own filter
 * arguments, and `after` (the last id seen: the keyset that pages it); FORBIDDEN when the
 * company's module for it is off.
 */
import type { InputFieldMap, InputShapeFromFields, ObjectRef } from '@pothos/core';
import type { ModuleSlug } from '../../kernel/access.js';
import type { TenantContext } from '../tenant-context.js';
import { builder } from './builder.js';
import { afterArg, pageLimit, requireModule } from './context.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The keyset page a list reads: the rows with ids above `after`, at most `limit`. */
export interface AfterPage {
  after?: number;
  limit: number;
}

export function listAfter<T, Args extends InputFieldMap>(
  name: string,
  field: {
    type: ObjectRef<Types, T>;
    description: string;
    module: ModuleSlug;
    /** The list's filters, as REST names them (builder.args). */
    args: Args;
    list: (tenant: TenantContext, args: InputShapeFromFields<Args>, page: AfterPage) => Promise<readonly T[]>;
  },
): void {
  builder.queryField(name, (t) =>
    t.field({
      type: [field.type],
      description: field.description,
      args: {
        limit: t.arg.int({ description: '1 to 100 (default 25).' }),
        ...field.args,
        after: t.arg.int(),
      },
      resolve: (_root, args, ctx) => {
        requireModule(ctx, field.module);
        // `list` answers the type's rows (checked by its signature); Pothos cannot resolve its
        // conditional result and argument types for a generic T and Args.
        const { limit, after, ...filters } = args as { limit?: number | null; after?: number | null } & Record<string, unknown>;
        return field.list(ctx.tenant, filters as never, { after: afterArg(after), limit: pageLimit(limit, 25, 100) }) as never;
      },
    }),
  );
}
