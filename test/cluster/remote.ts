/**
 * The test world and its API agents on running instances (a base URL) instead of an app in the
 * process: the same World the suites use (test/helpers/factories.ts, written to the database of
 * node 1), whose `as()` sends to a URL, every response checked against the document.
 */
import type { Knex } from 'knex';
import request, { type Test } from 'supertest';
import type { Express } from 'express';
import { createWorld, type Actor, type World } from '../helpers/factories.js';
import { withMethods, type Api, type Credentials } from '../helpers/api.js';
import { checkResponse } from '../helpers/contract-check.js';

export function remoteApi(baseUrl: string, credentials: Credentials = {}): Api {
  const make = (method: string, path: string): Test => {
    const test = (request(baseUrl) as unknown as Record<string, (path: string) => Test>)[method.toLowerCase()]!(path);
    test.timeout(60_000);
    if (credentials.token !== undefined) test.set('Authorization', `Bearer ${credentials.token}`);
    if (credentials.company !== undefined) test.set('X-Company-Id', String(credentials.company));
    test.expect((res) => checkResponse(method.toUpperCase(), path, { status: res.status, headers: res.headers, body: res.body, text: res.text }));
    return test;
  };
  return withMethods(make);
}

export interface RemoteWorld extends World {
  /** `as()` on another base URL (one instance directly, or HAProxy). */
  at(baseUrl: string, actor: Actor, company?: number | null): Api;
}

export async function createRemoteWorld(db: Knex, baseUrl: string): Promise<RemoteWorld> {
  const world = await createWorld(undefined as unknown as Express, db);
  const homes: Record<Actor, number | undefined> = {
    superAdmin: undefined,
    providerAdmin: world.provider.id,
    providerViewer: world.provider.id,
    admin: world.client.id,
    operator: world.client.id,
    viewer: world.client.id,
    otherClientAdmin: world.otherClient.id,
  };
  const at = (url: string, actor: Actor, company?: number | null): Api =>
    remoteApi(url, { token: world.users[actor].token, company: company === null ? undefined : (company ?? homes[actor]) });
  return { ...world, as: (actor, company) => at(baseUrl, actor, company), at };
}
