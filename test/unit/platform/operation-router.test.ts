import { expect } from 'chai';
import { listOperations, readDocument, type ContractOperation } from '../../../src/platform/openapi/document.js';
import { OperationRouter } from '../../../src/platform/openapi/operation-router.js';

/** A hand-made operation: the router reads only method, path and (for the tests) operationId. */
function op(method: string, path: string, operationId = `${method} ${path}`): ContractOperation {
  return { operationId, method, path } as unknown as ContractOperation;
}

function idOf(router: OperationRouter, method: string, path: string): string | undefined {
  return router.match(path)?.methods.get(method)?.operationId;
}

/**
 * How many Map lookups and RegExp executions one match makes: a measure of its work that, unlike
 * a timing, is exact. (RegExp.prototype.test and String.prototype.match both go through exec.)
 */
function workOf(match: () => unknown): number {
  const mapGet = Map.prototype.get;
  const exec = RegExp.prototype.exec;
  let count = 0;
  Map.prototype.get = function (this: Map<unknown, unknown>, key: unknown) {
    count += 1;
    return mapGet.call(this, key);
  } as typeof mapGet;
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    count += 1;
    return exec.call(this, input);
  };
  try {
    match();
  } finally {
    Map.prototype.get = mapGet;
    RegExp.prototype.exec = exec;
  }
  return count;
}

describe('OperationRouter', () => {
  describe('on the document', () => {
    const operations = listOperations(readDocument());
    const router = new OperationRouter(operations);

    it('When every operation is requested by its own path (parameters filled in), Then it finds that operation', () => {
      expect(operations.length).to.be.above(40);
      for (const operation of operations) {
        const path = operation.path.replace(/\{[^}]+\}/g, '1');
        expect(router.match(path)?.methods.get(operation.method), `${operation.method} ${path}`).to.equal(operation);
      }
    });

    it('When a static path overlaps a template, Then the static path wins (/api/articles/sync is syncArticles)', () => {
      const match = router.match('/api/articles/sync');
      expect(match?.methods.get('GET')?.operationId).to.equal('syncArticles');
      expect(match?.pathParams).to.deep.equal({});
      expect(idOf(router, 'GET', '/api/articles/42')).to.equal('getArticle');
    });

    it('When a templated path matches, Then its parameters are extracted as strings', () => {
      expect(router.match('/api/articles/42')?.pathParams).to.deep.equal({ id: '42' });
      const redeliver = router.match('/api/webhooks/7/deliveries/9/redeliver');
      expect(redeliver?.methods.get('POST')?.operationId).to.equal('redeliverWebhookDelivery');
      expect(redeliver?.pathParams).to.deep.equal({ id: '7', deliveryId: '9' });
    });

    it('When a parameter is percent-encoded, Then it is URI-decoded (A%2FB is A/B)', () => {
      const match = router.match('/api/articles/by-code/A%2FB');
      expect(match?.methods.get('PATCH')?.operationId).to.equal('patchArticleByCode');
      expect(match?.pathParams).to.deep.equal({ articleCode: 'A/B' });
      expect(router.match('/api/articles/by-code/%C8%98ur%C4%83%20x')?.pathParams).to.deep.equal({ articleCode: 'Șură x' });
    });

    it('When the percent-encoding is malformed, Then it does not throw and nothing matches', () => {
      for (const path of ['/api/articles/by-code/%E0%A4%A', '/api/articles/%', '/api/partners/%ZZ']) {
        expect(() => router.match(path), path).not.to.throw();
        expect(router.match(path), path).to.equal(undefined);
      }
    });

    it('When the path is unknown, Then the match is undefined', () => {
      for (const path of ['/api/unknown', '/api/articles/42/extra', '/nope', '/', '', '/api/articles/by-code/A/B']) {
        expect(router.match(path), path).to.equal(undefined);
      }
    });

    it('When the path has one trailing slash, Then it matches as without it (static and templated)', () => {
      expect(idOf(router, 'GET', '/api/companies/')).to.equal('listCompanies');
      expect(router.match('/api/articles/42/')?.pathParams).to.deep.equal({ id: '42' });
      expect(idOf(router, 'GET', '/api/articles/42/')).to.equal('getArticle');
    });

    it('When a path has several methods, Then the match maps each method to its operation', () => {
      const byMethod = (path: string): Record<string, string> =>
        Object.fromEntries([...router.match(path)!.methods].map(([method, operation]) => [method, operation.operationId]));
      expect(byMethod('/api/articles')).to.deep.equal({ GET: 'listArticles', POST: 'createArticle' });
      expect(byMethod('/api/articles/5')).to.deep.equal({ GET: 'getArticle', PUT: 'updateArticle' });
      expect(byMethod('/api/webhooks/5')).to.deep.equal({ GET: 'getWebhook', PUT: 'updateWebhook', DELETE: 'deleteWebhook' });
      expect(byMethod('/graphql')).to.deep.equal({ GET: 'getGraphql', POST: 'postGraphql' });
    });
  });

  describe('on hand-made operations', () => {
    it('When a static branch fails deeper down, Then the parameter branch is tried, and no parameter of the failed branch leaks', () => {
      const router = new OperationRouter([op('GET', '/a/{x}/d/e', 'deep'), op('GET', '/a/c/{y}', 'shallow')]);
      expect(idOf(router, 'GET', '/a/c/z')).to.equal('shallow');
      expect(router.match('/a/c/z')?.pathParams).to.deep.equal({ y: 'z' });
      expect(idOf(router, 'GET', '/a/c/d/e')).to.equal('deep');
      expect(router.match('/a/c/d/e')?.pathParams).to.deep.equal({ x: 'c' });
    });

    it('When a static path and a template share a prefix, Then each path finds its own', () => {
      const router = new OperationRouter([op('GET', '/items/{id}', 'one'), op('GET', '/items/latest', 'latest'), op('POST', '/items', 'create')]);
      expect(idOf(router, 'GET', '/items/latest')).to.equal('latest');
      expect(idOf(router, 'GET', '/items/latest2')).to.equal('one');
      expect(idOf(router, 'POST', '/items')).to.equal('create');
      expect(router.match('/items')?.methods.has('GET')).to.equal(false);
    });

    it('When a parameter segment is empty, Then it does not match', () => {
      const router = new OperationRouter([op('GET', '/a/{x}/b')]);
      expect(router.match('/a//b')).to.equal(undefined);
      expect(router.match('/a/1/b')?.pathParams).to.deep.equal({ x: '1' });
    });

    it('When the same path has several methods, Then they share one match', () => {
      const router = new OperationRouter([op('GET', '/t/{id}', 'get'), op('DELETE', '/t/{id}', 'delete'), op('GET', '/s', 's')]);
      expect([...router.match('/t/3')!.methods.keys()]).to.deep.equal(['GET', 'DELETE']);
      expect([...router.match('/s')!.methods.keys()]).to.deep.equal(['GET']);
    });

    it('When two templates name the same position differently, Then building the router fails', () => {
      expect(() => new OperationRouter([op('GET', '/a/{x}'), op('GET', '/a/{y}/b')])).to.throw(/clashes/);
    });

    it('When the router is empty, Then nothing matches', () => {
      expect(new OperationRouter([]).match('/api')).to.equal(undefined);
    });
  });

  describe('with 2000 more operations', () => {
    const documentOps = listOperations(readDocument());
    const synthetic = Array.from({ length: 1000 }, (_, i) => [
      op('GET', `/api/synthetic-${i}/{id}/items/{itemId}`, `synthetic${i}`),
      op('GET', `/api/articles/{id}/variant-${i}`, `variant${i}`),
    ]).flat();
    const small = new OperationRouter(documentOps);
    const large = new OperationRouter([...documentOps, ...synthetic]);

    it('When the router holds 2000 extra templated operations, Then it still matches each correctly', () => {
      expect(idOf(large, 'GET', '/api/synthetic-0/5/items/6')).to.equal('synthetic0');
      expect(large.match('/api/synthetic-999/5/items/A%20B')?.pathParams).to.deep.equal({ id: '5', itemId: 'A B' });
      expect(idOf(large, 'GET', '/api/synthetic-999/5/items/6')).to.equal('synthetic999');
      expect(idOf(large, 'GET', '/api/articles/9/variant-567')).to.equal('variant567');
      expect(large.match('/api/articles/9/variant-567')?.pathParams).to.deep.equal({ id: '9' });
      expect(large.match('/api/synthetic-1000/5/items/6')).to.equal(undefined);
      expect(idOf(large, 'GET', '/api/articles/sync')).to.equal('syncArticles');
      expect(idOf(large, 'GET', '/api/articles/9')).to.equal('getArticle');
      for (const operation of documentOps) {
        const path = operation.path.replace(/\{[^}]+\}/g, '1');
        expect(large.match(path)?.methods.get(operation.method), path).to.equal(operation);
      }
    });

    it('When a path is matched, Then the lookups it takes are the same as in the router without the extra operations', () => {
      for (const path of ['/api/articles/42', '/api/webhooks/7/deliveries/9/redeliver', '/api/articles/by-code/X', '/api/nope/1', '/api/companies']) {
        const work = workOf(() => small.match(path));
        expect(work, path).to.be.above(0);
        expect(workOf(() => large.match(path)), path).to.equal(work);
      }
    });
  });
});
