/**
 * One table of what an error means (src/platform/error-status.ts): an error a GraphQL resolver
 * throws gets the code of its REST status, the same code the request path gives it in a GraphQL
 * answer (they disagreed on 409 and 503 when GraphQL kept a mapping of its own).
 */
import { expect } from 'chai';
import { GraphQLError } from 'graphql';
import * as errors from '../../../src/platform/errors.js';
import { databaseFaultOf, graphqlCodeOf, httpStatusOf } from '../../../src/platform/error-status.js';
import { maskError } from '../../../src/graphql/yoga.js';

const thrown: Array<[errors.AppError, number, string]> = [
  [new errors.BadRequestError('x'), 400, 'BAD_REQUEST'],
  [new errors.UnauthenticatedError(), 401, 'UNAUTHENTICATED'],
  [new errors.ForbiddenError('x'), 403, 'FORBIDDEN'],
  [new errors.NotFoundError('x'), 404, 'NOT_FOUND'],
  [new errors.ConflictError('x'), 409, 'CONFLICT'],
  [errors.InputError.field('quantity', 'The quantity must be greater than 0.'), 422, 'BAD_USER_INPUT'],
  [new errors.TooManyRequestsError(3), 429, 'RATE_LIMITED'],
  [new errors.ServiceUnavailableError('The etsm integration is not configured.'), 503, 'SERVICE_UNAVAILABLE'],
];

describe('The error table (platform/error-status.ts)', () => {
  for (const [error, status, code] of thrown) {
    it(`When a resolver throws ${error.name}, Then GraphQL answers ${code}, the code of its REST status ${status}`, () => {
      expect(httpStatusOf(error)).to.equal(status);
      expect(graphqlCodeOf(status)).to.equal(code);
      const masked = maskError(new GraphQLError(error.message, { originalError: error, path: ['field'] }), 'Unexpected error.') as GraphQLError;
      expect(masked.message).to.equal(error.message);
      expect(masked.path).to.deep.equal(['field']);
      expect(masked.extensions.code).to.equal(code);
    });
  }

  it('When a resolver throws ServiceUnavailableError with a retry time, Then GraphQL answers HTTP 503 with Retry-After', () => {
    const masked = maskError(new errors.ServiceUnavailableError('Busy.', 7), 'Unexpected error.') as GraphQLError;
    expect(masked.extensions).to.deep.equal({ code: 'SERVICE_UNAVAILABLE', http: { status: 503, headers: { 'Retry-After': '7' } } });
  });

  it("When the database cannot write its files (SQLite's disk full, I/O error, read-only or unopenable file; MariaDB's disk or table full, write error, read-only server), Then it is a 503 to retry in 30 s, not a 500", () => {
    const sqlite = (code: string, message: string) => Object.assign(new Error(message), { code });
    const mysql = (errno: number, code: string, message: string) => Object.assign(new Error(message), { errno, code });
    for (const error of [
      sqlite('SQLITE_FULL', 'database or disk is full'),
      sqlite('SQLITE_IOERR', 'disk I/O error'),
      sqlite('SQLITE_IOERR_WRITE', 'disk I/O error'),
      sqlite('SQLITE_READONLY', 'attempt to write a readonly database'),
      sqlite('SQLITE_READONLY_DBMOVED', 'attempt to write a readonly database'),
      sqlite('SQLITE_CANTOPEN', 'unable to open database file'),
      mysql(1021, 'ER_DISK_FULL', 'Disk full (/tmp/#sql); waiting for someone to free some space...'),
      mysql(1114, 'ER_RECORD_FILE_FULL', "The table 'articles' is full"),
      mysql(3, 'EE_WRITE', 'Error writing file'),
      mysql(1290, 'ER_OPTION_PREVENTS_STATEMENT', 'The MariaDB server is running with the --read-only option so it cannot execute this statement'),
      mysql(1836, 'ER_READ_ONLY_MODE', 'Running in read-only mode'),
    ]) {
      expect(databaseFaultOf(error), error.message).to.deep.equal({ message: 'The service is temporarily unavailable. Try again shortly.', retryAfterSeconds: 30 });
    }
    for (const error of [sqlite('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed'), sqlite('SQLITE_ERROR', 'no such column: x'), mysql(1062, 'ER_DUP_ENTRY', 'Duplicate entry')]) {
      expect(databaseFaultOf(error), error.message).to.equal(undefined);
    }
  });

  it('When a resolver meets anything else, Then it is masked as INTERNAL_SERVER_ERROR', () => {
    const masked = maskError(new Error('SELECT * FROM secrets'), 'Unexpected error.') as GraphQLError;
    expect([masked.message, masked.extensions.code]).to.deep.equal(['Unexpected error.', 'INTERNAL_SERVER_ERROR']);
  });
});
