/**
 * The platform tables: companies (a provider with client companies), users, memberships with role,
 * company modules, personal access tokens, partners, warehouses, the unit catalogue, heartbeats.
 */
import type { Knex } from 'knex';

function timestamps(t: Knex.CreateTableBuilder): void {
  t.datetime('created_at', { precision: 6 }).notNullable();
  t.datetime('updated_at', { precision: 6 }).notNullable();
}

function fk(t: Knex.CreateTableBuilder, column: string, table: string): Knex.ReferencingColumnBuilder {
  return t.integer(column).unsigned().references('id').inTable(table);
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('companies', (t) => {
    t.increments('id');
    t.string('name', 255).notNullable();
    t.string('type', 16).notNullable();
    fk(t, 'provider_id', 'companies').nullable().index();
    t.string('vat_code', 32).nullable();
    timestamps(t);
  });
  await knex.schema.createTable('users', (t) => {
    t.increments('id');
    t.string('name', 255).notNullable();
    t.string('email', 255).notNullable().unique();
    t.string('password_hash', 255).notNullable();
    t.boolean('is_super_admin').notNullable().defaultTo(false);
    fk(t, 'primary_company_id', 'companies').nullable();
    timestamps(t);
  });
  await knex.schema.createTable('company_users', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    fk(t, 'user_id', 'users').notNullable().index();
    t.string('role', 16).notNullable();
    t.unique(['company_id', 'user_id']);
  });
  await knex.schema.createTable('company_modules', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    t.string('module', 32).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.unique(['company_id', 'module']);
  });
  await knex.schema.createTable('personal_access_tokens', (t) => {
    t.increments('id');
    fk(t, 'user_id', 'users').notNullable().index();
    t.string('name', 255).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.datetime('revoked_at', { precision: 6 }).nullable();
    t.datetime('created_at', { precision: 6 }).notNullable();
  });
  await knex.schema.createTable('partners', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    t.string('type', 16).notNullable();
    t.string('code', 64).nullable();
    t.string('name', 255).notNullable();
    t.string('vat_code', 32).nullable();
    t.string('email', 255).nullable();
    t.string('phone', 64).nullable();
    t.string('address', 500).nullable();
    t.boolean('active').notNullable().defaultTo(true);
    timestamps(t);
    t.index(['company_id', 'type']);
    t.unique(['company_id', 'code']);
  });
  await knex.schema.createTable('warehouses', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    t.string('code', 32).notNullable();
    t.string('name', 255).notNullable();
    t.string('address', 500).nullable();
    t.boolean('active').notNullable().defaultTo(true);
    timestamps(t);
    t.unique(['company_id', 'code']);
  });
  await knex.schema.createTable('units', (t) => {
    t.increments('id');
    fk(t, 'company_id', 'companies').notNullable();
    t.string('code', 16).notNullable();
    t.string('name', 64).notNullable();
    t.boolean('integer_only').notNullable().defaultTo(false);
    timestamps(t);
    t.unique(['company_id', 'code']);
  });
  await knex.schema.createTable('heartbeats', (t) => {
    t.increments('id');
    t.string('name', 64).notNullable().unique();
    t.datetime('last_ping_at', { precision: 6 }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'heartbeats',
    'units',
    'warehouses',
    'partners',
    'personal_access_tokens',
    'company_modules',
    'company_users',
    'users',
    'companies',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
