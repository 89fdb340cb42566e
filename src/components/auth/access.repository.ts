/** Memberships: who belongs to which company with which role. */
import type { Knex } from 'knex';
import type { Role } from '../../kernel/access.js';

export interface Membership {
  company_id: number;
  role: Role;
}

export async function membershipsOf(tx: Knex, userId: number): Promise<Membership[]> {
  return tx('company_users').select('company_id', 'role').where('user_id', userId).orderBy('company_id');
}

export async function roleOf(tx: Knex, userId: number, companyId: number): Promise<Role | undefined> {
  const row = await tx('company_users').select('role').where({ user_id: userId, company_id: companyId }).first();
  return row?.role as Role | undefined;
}

export async function updateRole(tx: Knex, userId: number, companyId: number, role: Role): Promise<void> {
  await tx('company_users').where({ user_id: userId, company_id: companyId }).update({ role });
}

export async function addMembership(db: Knex, userId: number, companyId: number, role: Role): Promise<void> {
  await db('company_users').insert({ user_id: userId, company_id: companyId, role });
}

/** Deletes the user's membership of the company; answers whether there was one. */
export async function removeMembership(tx: Knex, userId: number, companyId: number): Promise<boolean> {
  return (await tx('company_users').where({ user_id: userId, company_id: companyId }).delete()) === 1;
}
