/**
 * The catalogue keeps the contract honest: every operation of the document has exactly one
 * handler or is listed as not implemented (and then answers 501), the policy extensions use known
 * values, the module catalogue matches the document, and the generated files are current.
 */
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { handlers } from '../src/handlers.js';
import { NOT_IMPLEMENTED } from '../src/not-implemented.js';
import { MODULES, ROLES } from '../src/kernel/access.js';
import { readDocument } from '../src/platform/openapi/document.js';
import { harness, type Harness, ETSM_TEST_TOKEN, MDM_TEST_TOKEN } from './helpers/harness.js';
import { unchecked } from './helpers/api.js';
import { createWorld, type World } from './helpers/factories.js';
import { concretePath, exampleBody, operations } from './helpers/operations.js';

describe('Catalogue', () => {
  const ids = operations.map((op) => op.operationId);

  it('When the document is read, Then every operationId is unique', () => {
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('When handlers are registered, Then each names an operation of the document, and none is also listed as not implemented', () => {
    expect(Object.keys(handlers).filter((id) => !ids.includes(id as never))).to.deep.equal([]);
    expect(NOT_IMPLEMENTED.filter((id) => id in handlers)).to.deep.equal([]);
  });

  it('When an operation has no handler, Then it is listed as not implemented, once', () => {
    expect(ids.filter((id) => !(id in handlers)).sort()).to.deep.equal([...NOT_IMPLEMENTED].sort());
    expect(new Set(NOT_IMPLEMENTED).size).to.equal(NOT_IMPLEMENTED.length);
  });

  it('When policy extensions are read, Then they use known values', () => {
    const modules = ['none', ...MODULES.map((m) => m.slug)];
    for (const op of operations) {
      expect(modules, `${op.operationId} x-module`).to.include(op.module);
      expect(['none', ...ROLES], `${op.operationId} x-role`).to.include(op.role);
      expect(['auth', 'data', 'none'], `${op.operationId} x-rate-limit`).to.include(op.rateLimit);
    }
  });

  it('When an operation needs a module or a role, Then it takes X-Company-Id (the tenancy step checks both against that scope)', () => {
    const unscoped = operations.filter((op) => (op.module !== 'none' || op.role !== 'none') && op.companyHeader === 'absent');
    expect(unscoped.map((op) => op.operationId)).to.deep.equal([]);
  });

  it('When the module catalogue is compared with the document, Then ModuleSlug lists exactly its modules', () => {
    const schemas = (readDocument().components as { schemas: Record<string, { enum?: string[] }> }).schemas;
    expect(schemas.ModuleSlug!.enum).to.deep.equal(MODULES.map((m) => m.slug));
  });

  it('When the document is regenerated, Then openapi/openapi.json and src/generated/ are current', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'codegen/generate.ts', '--check'], { encoding: 'utf8' });
    expect(result.status, result.stderr).to.equal(0);
  });
});

describe('Not-implemented operations', () => {
  let h: Harness;
  let world: World;

  before(async () => {
    h = await harness();
    world = await createWorld(h.app, h.db);
  });

  for (const id of NOT_IMPLEMENTED) {
    const op = operations.find((o) => o.operationId === id)!;
    it(`When ${op.method} ${op.path} is called validly, Then it answers 501 Not implemented`, async () => {
      const scheme = op.security.flat()[0];
      const token =
        scheme === 'etsmToken' ? ETSM_TEST_TOKEN : scheme === 'mdmToken' ? MDM_TEST_TOKEN : world.users.providerAdmin.token;
      const req = unchecked(h.app, { token, company: world.client.id }).request(op.method, concretePath(op));
      const body = exampleBody(op);
      if (body !== undefined) req.send(body as object);
      await req.expect(501, { message: 'Not implemented' });
    });
  }
});
