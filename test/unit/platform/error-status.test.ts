/**
 * One table of what an error means (src/platform/error-status.ts): an error a GraphQL resolver
 * throws gets the code of its REST status, the same code the request path gives it in a GraphQL
 * answer (they disagreed on 409 and 503 when GraphQL kept a mapping of its own).
 */
import { expect } from 'chai';
import { GraphQLError } from 'graphql';
import * as errors from '../../../src/platform/errors.js';
import { graphqlCodeOf, httpStatusOf } from '../../../src/platform/error-status.js';
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

  it('When a resolver meets anything else, Then it is masked as INTERNAL_SERVER_ERROR', () => {
    const masked = maskError(new Error('SELECT * FROM secrets'), 'Unexpected error.') as GraphQLError;
    expect([masked.message, masked.extensions.code]).to.deep.equal(['Unexpected error.', 'INTERNAL_SERVER_ERROR']);
  });
});
