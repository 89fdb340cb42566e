/** Roles and modules: who may do what, and which parts of the service a company has switched on. */

export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** True when `role` is at least `least` (viewer < operator < admin). */
export function roleAllows(role: Role, least: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(least);
}

export const MODULES = [
  { slug: 'api', name: 'API' },
  { slug: 'articles', name: 'Articles' },
  { slug: 'stock', name: 'Stock' },
  { slug: 'inbound', name: 'Inbound' },
  { slug: 'outbound', name: 'Outbound' },
  { slug: 'returns', name: 'Returns' },
  { slug: 'webhooks', name: 'Webhooks' },
] as const;
export type ModuleSlug = (typeof MODULES)[number]['slug'];

export function isModuleSlug(value: string): value is ModuleSlug {
  return MODULES.some((m) => m.slug === value);
}

/** The modules an operation needs: `api` for every data route, plus its content module. */
export function modulesRequired(xModule: string): ModuleSlug[] {
  if (xModule === 'none') return [];
  if (xModule === 'api') return ['api'];
  if (!isModuleSlug(xModule)) throw new Error(`Unknown module ${xModule}`);
  return ['api', xModule];
}
