import { z } from 'zod';

export const SCHEMA_API = 'insight/schema/api';
export const SCHEMA_INZICHT = 'insight/schema/inzicht';
export const SCHEMA_VERSIE = '1.0';

export const accountMetaSchema = z
  .object({
    schema: z.string().describe("Schemafamilie op accountniveau; eindigt op '/api'."),
    schema_versie: z.literal(SCHEMA_VERSIE),
  })
  .meta({ id: 'AccountMeta' });

export function accountMeta() {
  return { schema: SCHEMA_API, schema_versie: SCHEMA_VERSIE } as const;
}

/** Free text that is stored: PostgreSQL refuses the NUL character in text (22021), so it is the caller's 400, not our 500. */
export function tekst(veld: string) {
  return z.string().refine((v) => !v.includes('\u0000'), `${veld}: bevat een NUL-teken (\\u0000), dat niet is toegestaan`);
}
