/** The log of a loop that fails again and again (src/platform/repeated-failure.ts): one line at its level per outage, not one per round. */
import { expect } from 'chai';
import { createLogger } from '../../../src/platform/logger.js';
import { repeatedFailureLog } from '../../../src/platform/repeated-failure.js';

describe('repeatedFailureLog', () => {
  it('When a loop fails three rounds and then works twice, Then the first failure is at warn, the repeats at debug, and one info line says it works again', () => {
    const lines: Array<{ level: number; msg: string; failures?: number }> = [];
    const logger = createLogger({ logLevel: 'debug', appName: 'test' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const log = repeatedFailureLog(logger, 'warn', { failing: 'stamping failed', recovered: 'stamping works again' });
    for (let i = 0; i < 3; i++) log.failed(new Error('connect ECONNREFUSED'));
    log.succeeded();
    log.succeeded();
    expect(lines.map((l) => [l.level, l.msg, l.failures])).to.deep.equal([
      [40, 'stamping failed', 1],
      [20, 'stamping failed', 2],
      [20, 'stamping failed', 3],
      [30, 'stamping works again', 3],
    ]);
    log.failed(new Error('again'));
    expect(lines.at(-1)).to.include({ level: 40, msg: 'stamping failed', failures: 1 });
  });
});
