/**
 * Test data: each test file builds its own world (a provider with two clients, warehouses, units,
 * partners, users of every role with tokens), with unique names, so tests never share rows.
 */
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import type { Knex } from 'knex';
import * as build from '../../db/seeds/builders.js';
import { hashPassword } from '../../src/components/auth/passwords.js';
import { generateToken, hashToken } from '../../src/components/auth/tokens.js';
import type { ModuleSlug, Role } from '../../src/kernel/access.js';
import { nowDb } from '../../src/kernel/time.js';
import { api, type Api } from './api.js';

export const TEST_PASSWORD = 'test-password';
let passwordHash: Promise<string> | undefined;

export function unique(prefix = ''): string {
  return `${prefix}${randomBytes(4).toString('hex')}`;
}

export interface TestUser {
  id: number;
  email: string;
  token: string;
}

export async function createToken(db: Knex, userId: number): Promise<string> {
  const token = generateToken();
  await db('personal_access_tokens').insert({ user_id: userId, name: 'test', token_hash: hashToken(token), created_at: nowDb() });
  return token;
}

export async function createUser(
  db: Knex,
  options: { memberships?: Array<[number, Role]>; superAdmin?: boolean; primary?: number | null; name?: string } = {},
): Promise<TestUser> {
  passwordHash ??= hashPassword(TEST_PASSWORD);
  const email = `${unique('user-')}@example.test`;
  const id = await build.insertUser(db, {
    name: options.name ?? `User ${email}`,
    email,
    password_hash: await passwordHash,
    is_super_admin: options.superAdmin ?? false,
    primary_company_id: options.primary ?? options.memberships?.[0]?.[0] ?? null,
  });
  for (const [company, role] of options.memberships ?? []) await build.addMembership(db, id, company, role);
  return { id, email, token: await createToken(db, id) };
}

export type Actor = 'superAdmin' | 'providerAdmin' | 'providerViewer' | 'admin' | 'operator' | 'viewer' | 'otherClientAdmin';

export interface World {
  provider: { id: number; name: string };
  /** The client the client-level users belong to. */
  client: { id: number; name: string };
  /** A second client of the same provider. */
  otherClient: { id: number; name: string };
  warehouses: number[];
  partners: { supplier: number; client: number; otherClientSupplier: number; otherClientCustomer: number };
  /** One article of each client (whole-number unit BUC). */
  articles: { client: { id: number; code: string }; otherClient: { id: number; code: string } };
  users: Record<Actor, TestUser>;
  /** An agent acting as `actor`; X-Company-Id defaults to the actor's own company (none for the super-admin). */
  as(actor: Actor, company?: number | null): Api;
}

export async function createWorld(app: Express, db: Knex, options: { modulesOff?: ModuleSlug[] } = {}): Promise<World> {
  const tag = unique();
  const providerName = `Provider ${tag}`;
  const provider = await build.insertCompany(db, { name: providerName, type: 'provider' });
  const clientName = `Client A ${tag}`;
  const client = await build.insertCompany(db, { name: clientName, type: 'client', provider_id: provider, vat_code: `RO${tag}` });
  const otherName = `Client B ${tag}`;
  const otherClient = await build.insertCompany(db, { name: otherName, type: 'client', provider_id: provider });
  for (const company of [provider, client, otherClient]) await build.setModules(db, company, options.modulesOff ?? []);
  const warehouses = [
    await build.insertWarehouse(db, { company_id: provider, code: `WH1-${tag}`, name: `North ${tag}` }),
    await build.insertWarehouse(db, { company_id: provider, code: `WH2-${tag}`, name: `South ${tag}` }),
  ];
  await build.insertUnit(db, { company_id: provider, code: 'BUC', name: 'Piece', integer_only: true });
  await build.insertUnit(db, { company_id: provider, code: 'KG', name: 'Kilogram', integer_only: false });
  const partners = {
    supplier: await build.insertPartner(db, { company_id: client, type: 'supplier', name: `Supplier ${tag}`, code: `SUP-${tag}` }),
    client: await build.insertPartner(db, { company_id: client, type: 'client', name: `Customer ${tag}`, code: `CUS-${tag}` }),
    otherClientSupplier: await build.insertPartner(db, { company_id: otherClient, type: 'supplier', name: `Other supplier ${tag}` }),
    otherClientCustomer: await build.insertPartner(db, { company_id: otherClient, type: 'client', name: `Other customer ${tag}` }),
  };
  const article = async (company: number, code: string) => ({
    id: await build.insertArticle(db, { company_id: company, article_code: code, description: `Article ${code}`, um3pl: 'BUC' }),
    code,
  });
  const articles = { client: await article(client, `ART-A-${tag}`), otherClient: await article(otherClient, `ART-B-${tag}`) };
  const users: Record<Actor, TestUser> = {
    superAdmin: await createUser(db, { superAdmin: true }),
    providerAdmin: await createUser(db, { memberships: [[provider, 'admin']] }),
    providerViewer: await createUser(db, { memberships: [[provider, 'viewer']] }),
    admin: await createUser(db, { memberships: [[client, 'admin']] }),
    operator: await createUser(db, { memberships: [[client, 'operator']] }),
    viewer: await createUser(db, { memberships: [[client, 'viewer']] }),
    otherClientAdmin: await createUser(db, { memberships: [[otherClient, 'admin']] }),
  };
  const homes: Record<Actor, number | undefined> = {
    superAdmin: undefined,
    providerAdmin: provider,
    providerViewer: provider,
    admin: client,
    operator: client,
    viewer: client,
    otherClientAdmin: otherClient,
  };
  return {
    provider: { id: provider, name: providerName },
    client: { id: client, name: clientName },
    otherClient: { id: otherClient, name: otherName },
    warehouses,
    partners,
    articles,
    users,
    as: (actor, company) =>
      api(app, { token: users[actor].token, company: company === null ? undefined : (company ?? homes[actor]) }),
  };
}
