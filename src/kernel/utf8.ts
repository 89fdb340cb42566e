/** UTF-8 as RFC 3629 defines it (the Unicode Standard's table 3-7 of well-formed byte sequences). */

/** The length of the sequence `lead` begins, or 0 when no well-formed sequence begins with it. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * The offset of the first sequence of `bytes` that is not well-formed UTF-8 (a stray continuation
 * byte, a lead byte without its continuation, an overlong form, a surrogate, a code point past
 * U+10FFFF), or -1 when all of it is.
 */
export function invalidUtf8At(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    const length = sequenceLength(lead);
    if (length === 0) return i;
    // The second byte's range is what rules out overlong forms (E0, F0), surrogates (ED) and code
    // points past U+10FFFF (F4); the others are 80 to BF.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k < length; k++) {
      const byte = bytes[i + k];
      if (byte === undefined || byte < (k === 1 ? low : 0x80) || byte > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}
