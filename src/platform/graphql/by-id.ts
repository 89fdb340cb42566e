/**
 * A query field that reads one row in scope by its id, as REST's `GET …/{id}` does: null for an id
 * out of scope or unknown (never an error that tells a stranger it exists), BAD_USER_INPUT for an
 * id below 1, FORBIDDEN when the company's module for it is off.
 */
import type { ObjectRef } from '@pothos/core';
import type { ModuleSlug } from '../../kernel/access.js';
import type { TenantContext } from '../tenant-context.js';
import { builder } from './builder.js';
import { idArg, requireModule } from './context.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

export function oneById<T>(
  name: string,
  field: { type: ObjectRef<Types, T>; description: string; module?: ModuleSlug; find: (tenant: TenantContext, id: number) => Promise<T | undefined> },
): void {
  builder.queryField(name, (t) =>
    t.field({
      type: field.type,
      nullable: true,
      description: field.description,
      args: { id: t.arg.int({ required: true }) },
      resolve: (_root, args, ctx) => {
        if (field.module) requireModule(ctx, field.module);
        // `find` answers the type's shape (checked by its signature); Pothos cannot resolve its
        // conditional result type for a generic T.
        return field.find(ctx.tenant, idArg(args.id, 'id')) as never;
      },
    }),
  );
}
