import { isUtf8 } from 'node:buffer';
import { expect } from 'chai';
import { invalidUtf8At } from '../../../src/kernel/utf8.js';

describe('invalidUtf8At', () => {
  const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

  it('When every sequence is well-formed (ASCII, 2, 3 and 4 bytes, the last code point), Then it answers -1', () => {
    for (const text of ['', 'plain', 'Öl ÄPFEL', 'ẞ €', '😀 𝔘', '\u{10FFFF}', '\uFEFF{}']) expect(invalidUtf8At(Buffer.from(text)), text).to.equal(-1);
  });

  // [what, bytes, offset]: each ill-formed sequence of the Unicode Standard's table 3-7.
  const cases: Array<[string, Uint8Array, number]> = [
    ['a Latin-1 letter', bytes(0x4c, 0x58, 0x2d, 0xd6, 0x4c), 3],
    ['a stray continuation byte', bytes(0x41, 0x80), 1],
    ['C0 and C1 (overlong two bytes)', bytes(0xc1, 0xbf), 0],
    ['an overlong three-byte form', bytes(0xe0, 0x9f, 0xbf), 0],
    ['a surrogate (ED A0 80)', bytes(0x61, 0xed, 0xa0, 0x80), 1],
    ['an overlong four-byte form', bytes(0xf0, 0x8f, 0xbf, 0xbf), 0],
    ['a code point past U+10FFFF', bytes(0xf4, 0x90, 0x80, 0x80), 0],
    ['F5 and above', bytes(0xf5, 0x80, 0x80, 0x80), 0],
    ['a sequence cut short at the end', bytes(0x61, 0x62, 0xe2, 0x82), 2],
    ['a sequence cut short by ASCII', bytes(0xe2, 0x41, 0x42), 0],
  ];
  for (const [what, input, offset] of cases) {
    it(`When the bytes hold ${what}, Then it answers the sequence's offset, ${offset}, where Node's isUtf8 refuses them too`, () => {
      expect(invalidUtf8At(input)).to.equal(offset);
      expect(isUtf8(input)).to.equal(false);
    });
  }
});
