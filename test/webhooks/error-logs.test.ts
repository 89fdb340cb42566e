/**
 * A failed statement is logged without the statement: knex writes the SQL with every bound value in
 * front of the driver's message (and mysql2 adds `sql`), so a logged error would carry the row it
 * was writing (an event payload, an article). The process logger (src/platform/logger.ts) keeps
 * the error's type, code and the driver's message; the app's error handler logs through it.
 */
import { expect } from 'chai';
import { createLogger } from '../../src/platform/logger.js';
import { unchecked } from '../helpers/api.js';
import { createWorld, unique } from '../helpers/factories.js';
import { testEnv } from '../helpers/test-env.js';
import { isolatedApp, type Isolated } from './support.js';

interface Line {
  level: number;
  msg: string;
  err?: { type: string; message: string; code?: string; errno?: number; stack?: string; sql?: string };
}

describe('Logged errors: no statement, no values', () => {
  const lines: string[] = [];
  let h: Isolated;

  before(async () => {
    const logger = createLogger({ logLevel: 'info', appName: 'test' }, { write: (line: string) => void lines.push(line) });
    h = await isolatedApp({ logger });
  });

  after(async () => {
    await h?.close();
  });

  it(`When a write fails on a statement carrying the resource (${testEnv.engine}), Then the 500 is logged with the driver's code and message, and no line holds the SQL or the data`, async () => {
    const world = await createWorld(h.app, h.db);
    // The article's insert succeeds; recording its event (the article as JSON) then fails.
    await h.db.schema.dropTable('outbox_events');
    const code = unique('LOGGED-');
    const description = `A description only the failed statement holds ${unique()}`;
    // A 500 is outside the document (every one is a defect), so this request is not contract-checked.
    await unchecked(h.app, { token: world.users.admin.token, company: world.client.id })
      .post('/api/articles')
      .send({ article_code: code, description, um3pl: 'BUC' })
      .expect(500);

    const failed = lines.map((line) => JSON.parse(line) as Line).filter((line) => line.msg === 'request failed');
    expect(failed).to.have.length(1);
    const err = failed[0]!.err!;
    if (testEnv.engine === 'sqlite') {
      expect(err).to.include({ type: 'SqliteError', code: 'SQLITE_ERROR', message: 'no such table: outbox_events' });
    } else {
      expect(err).to.include({ code: 'ER_NO_SUCH_TABLE', errno: 1146 });
      expect(err.message).to.match(/^Table '[^']+\.outbox_events' doesn't exist$/);
    }
    expect(err.stack).to.match(new RegExp(`^${err.type}: ${err.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n    at `));
    expect(err).to.not.have.property('sql');
    for (const line of lines) {
      expect(line).to.not.include(code);
      expect(line).to.not.include(description);
      expect(line.toLowerCase()).to.not.include('insert into');
    }
  });
});
