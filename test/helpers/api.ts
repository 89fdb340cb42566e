/**
 * supertest agents whose every response is checked against the document (contract-check.ts), so
 * no test can forget it: `api(app, { token, company })`. `unchecked(app)` is for the rare test
 * whose response is outside the document on purpose.
 */
import type { Express } from 'express';
import request from 'supertest';
import type { Test } from 'supertest';
import { createHttpServer } from '../../src/platform/http/http-server.js';
import { checkResponse } from './contract-check.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';

export interface Api {
  get(path: string): Test;
  post(path: string): Test;
  put(path: string): Test;
  patch(path: string): Test;
  delete(path: string): Test;
  head(path: string): Test;
  options(path: string): Test;
  request(method: string, path: string): Test;
}

export interface Credentials {
  /** A bearer token (personal access token or integration token). */
  token?: string;
  /** X-Company-Id; omitted when undefined. */
  company?: number | string;
}

function agent(app: Express, credentials: Credentials, check: boolean): Api {
  const make = (method: string, path: string): Test => {
    // The server as production makes it (src/main.ts), not supertest's own.
    const test = request(createHttpServer(app))[method.toLowerCase() as Method](path);
    if (credentials.token !== undefined) test.set('Authorization', `Bearer ${credentials.token}`);
    if (credentials.company !== undefined) test.set('X-Company-Id', String(credentials.company));
    if (check) {
      test.expect((res) =>
        checkResponse(method.toUpperCase(), path, { status: res.status, headers: res.headers, body: res.body, text: res.text }),
      );
    }
    return test;
  };
  return withMethods(make);
}

/** The Api of a function that makes a request of any method (an app in the process, or a URL: test/cluster/remote.ts). */
export function withMethods(make: (method: string, path: string) => Test): Api {
  return {
    get: (p) => make('get', p),
    post: (p) => make('post', p),
    put: (p) => make('put', p),
    patch: (p) => make('patch', p),
    delete: (p) => make('delete', p),
    head: (p) => make('head', p),
    options: (p) => make('options', p),
    request: make,
  };
}

export function api(app: Express, credentials: Credentials = {}): Api {
  return agent(app, credentials, true);
}

export function unchecked(app: Express, credentials: Credentials = {}): Api {
  return agent(app, credentials, false);
}
