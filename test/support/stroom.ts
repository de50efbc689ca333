/** Small helpers for the register-data parser tests. */
import { Readable } from 'node:stream';

/** A readable stream over `tekst` (or bytes), cut into chunks of `grootte` bytes to test chunk boundaries. */
export function stroomVan(tekst: string | Buffer, grootte = 7): Readable {
  const buf = typeof tekst === 'string' ? Buffer.from(tekst, 'utf8') : tekst;
  const delen: Buffer[] = [];
  for (let i = 0; i < buf.length; i += grootte) delen.push(buf.subarray(i, i + grootte));
  return Readable.from(delen);
}

export async function verzamel<T>(gen: AsyncIterable<T>): Promise<T[]> {
  const uit: T[] = [];
  for await (const x of gen) uit.push(x);
  return uit;
}
