/**
 * A process that cannot start says so in one JSON line on stderr (src/platform/startup.ts), like
 * every other line it writes: a bad configuration names the variable, and the process exits 1.
 */
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { projectRoot } from '../../src/platform/project-root.js';

async function start(entry: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', entry], { cwd: projectRoot, env: { PATH: process.env.PATH, ...env }, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('Start-up failures', () => {
  for (const entry of ['src/main.ts', 'src/worker.ts']) {
    it(`When ${entry} starts with a bad PORT, Then it exits 1 with one JSON line at fatal on stderr naming the variable, and nothing else`, async () => {
      const result = await start(entry, { PORT: 'abc', DATABASE_URL: 'sqlite::memory:' });
      expect(result.code).to.equal(1);
      expect(result.stdout).to.equal('');
      const lines = result.stderr.trim().split('\n');
      expect(lines).to.have.length(1);
      const line = JSON.parse(lines[0]!) as { level: number; time: string; msg: string };
      expect(line.level).to.equal(60);
      expect(line.time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(line.msg).to.match(/^Configuration error: PORT /);
    });
  }

  it('When src/main.ts cannot listen (its port is taken), Then it exits 1 with one JSON line at fatal naming the address, and no stack of an unhandled error event', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const result = await start('src/main.ts', { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'warn' });
      expect(result.code).to.equal(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines, result.stderr).to.have.length(1);
      const line = JSON.parse(lines[0]!) as { level: number; msg: string; err: { code: string; message: string } };
      expect(line).to.include({ level: 60, msg: 'The process could not start.' });
      expect(line.err).to.include({ code: 'EADDRINUSE' });
      expect(line.err.message).to.include(`127.0.0.1:${port}`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
