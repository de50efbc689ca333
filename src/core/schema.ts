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
