import { expect } from 'chai';
import { quoted } from '../../../src/kernel/text.js';

describe('quoted', () => {
  // [sent, shown]: what a message shows of text a client sent.
  const cases: Array<[string, string]> = [
    ['ACME-400', '"ACME-400"'],
    ['ACME-400 ', '"ACME-400 "'],
    ['ACME-400\u200b', '"ACME-400\\u200B"'],
    ['BUC\u00a0', '"BUC\\u00A0"'],
    ['\u202eevil', '"\\u202Eevil"'],
    ['tab\there', '"tab\\u0009here"'],
    ['say "hi" \\ bye', '"say \\"hi\\" \\\\ bye"'],
    ['Öl 😀 İ', '"Öl 😀 İ"'],
    ['flag\u{E0067}x', '"flag\\u{E0067}x"'],
  ];
  for (const [sent, shown] of cases) {
    it(`When the text is ${JSON.stringify(sent)}, Then it is shown ${shown}`, () => {
      expect(quoted(sent)).to.equal(shown);
    });
  }
});
