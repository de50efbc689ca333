import { randomFillSync } from 'node:crypto';

/** One system call per 256 draws instead of one per draw (uuid's v7 drew 16 bytes by web crypto each call, ~10 µs). */
const voorraad = Buffer.alloc(4096);
let positie = voorraad.length;

/** 16 fresh random bytes; a view that the next call may overwrite, so read it at once. */
export function random16(): Buffer {
  if (positie + 16 > voorraad.length) {
    randomFillSync(voorraad);
    positie = 0;
  }
  positie += 16;
  return voorraad.subarray(positie - 16, positie);
}
