/**
 * .env.example documents every variable src/config.ts reads, each with its default and a line
 * saying what it means: the variables are read from config.ts's own source, and the file's values
 * must load to exactly the configuration an empty environment gives.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';

/** The names config.ts reads: every `(env, 'NAME'` of its helpers (str, int, bool, oneOf, optional). */
function variablesConfigReads(): string[] {
  const source = readFileSync('src/config.ts', 'utf8');
  return [...new Set([...source.matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]!))].sort();
}

interface Entry {
  name: string;
  value: string;
  comment: string;
}

/** NAME=value lines, each with the comment line right above it. */
function exampleEntries(): Entry[] {
  const lines = readFileSync('.env.example', 'utf8').split('\n');
  return lines.flatMap((line, i) => {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m) return [];
    const above = lines[i - 1] ?? '';
    return [{ name: m[1]!, value: m[2]!, comment: above.startsWith('# ') ? above.slice(2).trim() : '' }];
  });
}

describe('.env.example', () => {
  it('When compared with src/config.ts, Then it names every variable config.ts reads, once, and nothing else', () => {
    const read = variablesConfigReads();
    expect(read.length, 'variables found in config.ts').to.be.greaterThan(20);
    const names = exampleEntries().map((e) => e.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i), 'named twice').to.deep.equal([]);
    expect([...names].sort()).to.deep.equal(read);
  });

  it('When each variable is read, Then the line above it says what it means', () => {
    const bare = exampleEntries().filter((e) => e.comment.length < 10).map((e) => e.name);
    expect(bare).to.deep.equal([]);
  });

  it('When its values are loaded, Then they give exactly the configuration of an empty environment (each value is the default)', () => {
    const env = Object.fromEntries(exampleEntries().map((e) => [e.name, e.value]));
    expect(loadConfig(env)).to.deep.equal(loadConfig({}));
  });
});
