import { expect } from 'chai';
import { ConcurrencyLimit } from '../../../src/platform/concurrency-limit.js';

/** A task that runs until its release() is called. */
function held(): { task: () => Promise<string>; release: (value: string) => void; started: () => boolean } {
  let release!: (value: string) => void;
  let started = false;
  const done = new Promise<string>((resolve) => (release = resolve));
  return { task: () => ((started = true), done), release, started: () => started };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrencyLimit', () => {
  it('When more tasks come than may run and wait, Then 2 run, 1 waits and the 4th is refused at once; the waiting one starts when a place is free', async () => {
    const limit = new ConcurrencyLimit(2, 1, () => new Error('full'));
    const [a, b, c, d] = [held(), held(), held(), held()];
    const runs = [a, b, c].map((t) => limit.run(t.task));
    await tick();
    expect([a, b, c].map((t) => t.started())).to.deep.equal([true, true, false]);
    await limit.run(d.task).then(() => expect.fail('the 4th task ran'), (error: Error) => expect(error.message).to.equal('full'));
    expect(d.started()).to.equal(false);
    a.release('a');
    await tick();
    expect(c.started()).to.equal(true);
    b.release('b');
    c.release('c');
    expect(await Promise.all(runs)).to.deep.equal(['a', 'b', 'c']);
  });

  it('When a task fails, Then its place is freed all the same', async () => {
    const limit = new ConcurrencyLimit(1, 0, () => new Error('full'));
    await limit.run(() => Promise.reject(new Error('boom'))).catch(() => undefined);
    expect(await limit.run(async () => 'next')).to.equal('next');
  });
});
