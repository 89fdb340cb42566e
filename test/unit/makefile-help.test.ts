/** `make help` (the default goal) lists every target of the Makefile with the text of its `## make <target>:` comment. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';

describe('make help', () => {
  const targets = [...readFileSync('Makefile', 'utf8').matchAll(/^([a-z][a-z-]*):/gm)].map((m) => m[1]!);
  const phony = readFileSync('Makefile', 'utf8').match(/^\.PHONY: (.*)$/m)?.[1]?.split(/\s+/) ?? [];

  function listed(output: string): Map<string, string> {
    return new Map([...output.matchAll(/^ {2}make (\S+) +(.+)$/gm)].map((m) => [m[1]!, m[2]!]));
  }

  it('When run, Then it lists every target of the Makefile once, each with what it does', () => {
    const output = execFileSync('make', ['--no-print-directory', 'help'], { encoding: 'utf8' });
    const lines = listed(output);
    expect(targets.length).to.be.greaterThan(10);
    expect([...lines.keys()].sort()).to.deep.equal([...targets].sort());
    expect([...phony].sort(), '.PHONY names the same targets').to.deep.equal([...targets].sort());
    for (const [target, text] of lines) expect(text.length, `the text of ${target}`).to.be.greaterThan(15);
    expect(lines.get('test')).to.include('SQLite and on MariaDB');
    // A comment of several lines reads as one.
    expect(lines.get('run')).to.include('serve on PORT (3000). The demo lets webhooks');
  });

  it('When make is run with no target, Then it prints the same help and installs nothing', () => {
    const plain = execFileSync('make', ['--no-print-directory'], { encoding: 'utf8' });
    expect(plain).to.equal(execFileSync('make', ['--no-print-directory', 'help'], { encoding: 'utf8' }));
  });
});
