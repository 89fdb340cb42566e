/** The credentials that worked lately, as Redis holds them for the failed-authentication ceiling. */
import { expect } from 'chai';
import { workingCredentials } from '../../../src/platform/http/working-credentials.js';

describe('workingCredentials', () => {
  const sent: string[][] = [];
  const redisCommand = async (args: string[]) => {
    sent.push(args);
    return 1 as never;
  };
  beforeEach(() => (sent.length = 0));

  it('When a shared integration secret works, Then Redis holds it under the integration name, never its digest', () => {
    const working = workingCredentials({ windowMs: 60_000, redisCommand, redisPrefix: 'p', integrations: new Map([['digest-of-etsm', 'etsm']]) });
    working.worked('digest-of-etsm');
    working.worked('digest-of-a-token');
    expect(sent).to.deep.equal([
      ['SET', 'p:rl:working:integration:etsm', '1', 'PX', '90000'],
      ['SET', 'p:rl:working:digest-of-a-token', '1', 'PX', '90000'],
    ]);
  });

  it('When a credential is refused, Then Redis is written only if this instance had seen it work (a flood of invented tokens writes nothing)', () => {
    const working = workingCredentials({ windowMs: 60_000, redisCommand, redisPrefix: 'p' });
    working.refused('invented');
    expect(sent).to.deep.equal([]);
    working.worked('revoked-later');
    working.refused('revoked-later');
    expect(sent.at(-1)).to.deep.equal(['DEL', 'p:rl:working:revoked-later']);
    expect(working.knownHere('revoked-later')).to.equal(false);
  });
});
