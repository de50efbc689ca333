/** Strict UTF-8: a file in another encoding (Windows-1252) is refused at its line instead of read as U+FFFD. */
import type { Readable } from 'node:stream';
import { bestanden, type Bron, type BronItem } from './bron.ts';
import { VerkeerdFormaatFout } from './types.ts';

export class GeenUtf8Fout extends Error {
  constructor(regel: number, byte: number | null) {
    const b = byte === null ? '' : ` (byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')})`;
    super(`regel ${regel}: bestand is geen UTF-8${b}; sla het op als UTF-8 (Windows-1252?). Er is niets geïmporteerd.`);
    this.name = 'GeenUtf8Fout';
  }
}

/** Index of the first byte that cannot start or continue a UTF-8 sequence here; -1 when all is valid so far. */
function eersteFout(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    const n = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
    if (n === 0) return i;
    for (let k = 1; k < n; k++) {
      if (i + k >= b.length) return -1;
      if ((b[i + k] & 0xc0) !== 0x80) return i;
    }
    i += n;
  }
  return -1;
}

function telRegels(b: Uint8Array, tot = b.length): number {
  let n = 0;
  for (let i = b.indexOf(10); i >= 0 && i < tot; i = b.indexOf(10, i + 1)) n++;
  return n;
}

/** A fatal TextDecoder that knows the line it is on. */
export class StrikteDecoder {
  readonly #d = new TextDecoder('utf-8', { fatal: true });
  #regel = 1;
  #vorig: Uint8Array = new Uint8Array(0);

  decode(chunk?: Uint8Array): string {
    try {
      const t = chunk === undefined ? this.#d.decode() : this.#d.decode(chunk, { stream: true });
      if (chunk) {
        this.#regel += telRegels(chunk);
        this.#vorig = chunk.subarray(Math.max(0, chunk.length - 3));
      }
      return t;
    } catch {
      const b = chunk ? Buffer.concat([this.#vorig, chunk]) : this.#vorig;
      const i = eersteFout(b);
      const plek = i < 0 ? b.length : i;
      throw new GeenUtf8Fout(this.#regel - telRegels(this.#vorig) + telRegels(b, plek), i < 0 ? null : b[i]);
    }
  }
}

/** Reads every file of the source once, before anything is written. */
export async function controleerUtf8(bron: Bron, filter: (i: BronItem) => boolean): Promise<void> {
  const voor = bron.gelezenBytes;
  try {
    for await (const b of bestanden(bron, { filter: (i) => i.isZip || filter(i) })) {
      const d = new StrikteDecoder();
      const stroom = (await b.open()) as Readable;
      try {
        for await (const c of stroom) d.decode(c as Uint8Array);
        d.decode();
      } catch (e) {
        if (e instanceof GeenUtf8Fout) throw new VerkeerdFormaatFout(bron.soort === 'bestand' ? e.message : `${b.naam}: ${e.message}`);
        throw e;
      } finally {
        stroom.destroy();
      }
    }
  } finally {
    bron.gelezenBytes = voor;
  }
}
