/**
 * The catalogue keeps the contract honest: every operation of the document has exactly one
 * handler (the start fails otherwise), the policy extensions use known
 * values, the module catalogue matches the document, and the generated files are current.
 */
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { handlers } from '../src/handlers.js';
import { MODULES, ROLES } from '../src/kernel/access.js';
import { readDocument } from '../src/platform/openapi/document.js';
import { operations } from './helpers/operations.js';

describe('Catalogue', () => {
  const ids = operations.map((op) => op.operationId);

  it('When the document is read, Then every operationId is unique', () => {
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('When handlers are registered, Then each names an operation of the document and every operation has one', () => {
    expect(Object.keys(handlers).filter((id) => !ids.includes(id as never))).to.deep.equal([]);
    expect(ids.filter((id) => !(id in handlers))).to.deep.equal([]);
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

  it('When a query parameter lets reserved characters through unencoded (allowReserved), Then it is a time or a choice: free text is percent-encoded by clients (a generated client or the try-it sending `search=A&B` raw split the query)', () => {
    for (const op of operations) {
      for (const p of op.parameters.filter((q) => q.in === 'query' && (q as { allowReserved?: boolean }).allowReserved)) {
        const schema = p.schema as { format?: string; $ref?: string; enum?: unknown[] };
        expect(schema.format === 'date-time' || schema.$ref !== undefined || schema.enum !== undefined, `${op.operationId} ${p.name}`).to.equal(true);
      }
    }
  });

  it('When an enum has a choice of values, Then it is a named schema (generated clients get a type to name; sdk.md promises it): inline enums hold one value (an event\'s type)', () => {
    const inline: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const values = (node as { enum?: unknown[] }).enum;
      if (Array.isArray(values) && values.length > 1 && !/^#\/components\/schemas\/[^/]+$/.test(path)) inline.push(path);
      for (const [key, value] of Object.entries(node)) walk(value, `${path}/${key}`);
    };
    walk(readDocument(), '#');
    expect(inline).to.deep.equal([]);
  });

  it('When any response of any operation is read, Then it declares X-Request-Id, required (the contract check then finds it on every answer of the suite)', () => {
    const doc = readDocument() as unknown as { components: { responses: Record<string, { headers?: Record<string, unknown> }> } };
    const missing: string[] = [];
    for (const op of operations) {
      for (const [status, response] of Object.entries((op.raw as unknown as { responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }> }).responses)) {
        const resolved = response.$ref ? doc.components.responses[response.$ref.replace('#/components/responses/', '')]! : response;
        if (!resolved.headers?.['X-Request-Id']) missing.push(`${op.operationId} ${status}`);
      }
    }
    expect(missing).to.deep.equal([]);
    expect((readDocument().components as { headers: Record<string, { required?: boolean }> }).headers['X-Request-Id']!.required).to.equal(true);
  });

  it('When the document is regenerated, Then openapi/openapi.json and src/generated/ are current', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'codegen/generate.ts', '--check'], { encoding: 'utf8' });
    expect(result.status, result.stderr).to.equal(0);
  });
});
