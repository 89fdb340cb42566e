/**
 * Step 6: the company scope. For operations that take X-Company-Id: 400 when it is required and
 * missing, 422 when it is not a positive integer (left to step 7, which lists it with the request's
 * other problems), 403 when the caller may not act for that
 * company, when the company's api or content module (x-module) is off, or when the caller's role
 * is below the operation's x-role.
 */
import type { RequestHandler } from 'express';
import type { Knex } from 'knex';
import { modulesRequired, roleAllows } from '../../kernel/access.js';
import type { CompanyScope } from '../../kernel/company-scope.js';
import { BadRequestError, ForbiddenError } from '../errors.js';
import { companyIdOf } from './company-id.js';
import type { AccessResolver } from '../../kernel/identity.js';

const HEADER = 'X-Company-Id';

/** The company id the header names (undefined: none sent), or why it names none. */
function companyIdFrom(raw: string | undefined): number | undefined | { problem: string } {
  if (raw === undefined || raw.trim() === '') return undefined;
  const id = companyIdOf(raw);
  if (id !== undefined) return id;
  // Node joins a header sent more than once with ', ' (a '1,5' typed by hand is not that).
  const sent = raw.split(', ');
  if (sent.length > 1 && sent.every((part) => companyIdOf(part) !== undefined)) {
    return { problem: `The ${HEADER} header was sent more than once (${sent.slice(0, 5).join(', ')}): send it once, with one company id.` };
  }
  return { problem: `The ${HEADER} header must be a positive integer of at most 2147483647.` };
}

function companyName(scope: CompanyScope): string {
  return scope.kind === 'company' ? scope.companyName : 'all companies';
}

export function tenancy(deps: { db: Knex; resolveAccess: AccessResolver }): RequestHandler {
  return async (req, _res, next) => {
    // An empty header is no header: the validator after this step would word it as a schema
    // breach (422 "must not be empty") where a missing one is the house's 400.
    const sent = req.headers['x-company-id'];
    if (typeof sent === 'string' && sent.trim() === '') delete req.headers['x-company-id'];
    const op = req.operation!;
    if (op.companyHeader === 'absent' || !req.auth) return next();
    const raw = req.headers['x-company-id'];
    const companyId = companyIdFrom(Array.isArray(raw) ? raw[0] : raw);
    if (typeof companyId === 'object') {
      // A 422 of the next step, with the request's other problems; nothing runs without a scope.
      req.companyIdProblem = companyId.problem;
      return next();
    }
    if (companyId === undefined && op.companyHeader === 'required') {
      throw new BadRequestError(`The ${HEADER} header is required.`);
    }
    const access = await deps.resolveAccess(deps.db, req.auth.principal, companyId);
    for (const module of modulesRequired(op.module)) {
      if (!access.activeModules.has(module)) {
        throw new ForbiddenError(`The ${module} module is not active for company ${companyName(access.scope)}.`);
      }
    }
    if (op.role !== 'none' && !roleAllows(access.role, op.role)) {
      throw new ForbiddenError(
        `This action needs the ${op.role} role; your role in company ${companyName(access.scope)} is ${access.role}.`,
      );
    }
    req.auth = { ...req.auth, scope: access.scope, role: access.role, activeModules: access.activeModules };
    next();
  };
}
