/**
 * No field is a bare z.number()/z.boolean() at object level: trpc-to-openapi switches `coerce` on for those
 * at runtime, and validation must be identical on every gateway (test/validatie.test.ts).
 */
import { z } from 'zod';
import { HUISNUMMER_RE, normaliseerPostcode, POSTCODE_INVOER_RE, TOEVOEGING_MAX, toevoegingVergelijkvorm } from '../../domain/begrippen.ts';
import { SCHEMA_VERSIE } from '../../core/schema.ts';
import { foutBeschrijvingen } from '../../core/errors.ts';
import { IDEMPOTENCY_KEY_RE } from '../../domain/idempotentie/idempotentie.ts';
import { toevoegingNormaal } from '../../domain/register/adressen.ts';

export const postcodeSchema = z
  .string({ error: 'verwacht tekst, zoals "1234AB"' })
  .regex(POSTCODE_INVOER_RE, 'ongeldige postcode: verwacht vier cijfers (eerste niet 0) en twee letters, zoals 1234AB of 1234 ab')
  .transform(normaliseerPostcode)
  .meta({ description: 'Nederlandse postcode, `1234AB` of `1234 ab` (hoogstens één spatie).', examples: ['1234AB'] });

const HUISNUMMER_BEREIK = 'ongeldig huisnummer: verwacht een geheel getal van 1 tot en met 99999';

/** "9a", "1-2", "3 bis": says where the letter or addition goes. */
function huisnummerFout(invoer: unknown): string {
  const m = typeof invoer === 'string' ? /^([1-9][0-9]{0,4})(?![0-9])(.+)$/s.exec(invoer.trim()) : null;
  const rest = m?.[2].trim() ?? '';
  if (!m || !/^[0-9A-Za-z -]+$/.test(rest) || !/[0-9A-Za-z]/.test(rest)) return HUISNUMMER_BEREIK;
  const [nummer, toevoeging] = rest.length <= TOEVOEGING_MAX ? [m[1], rest.toUpperCase()] : ['9', 'A'];
  return `${HUISNUMMER_BEREIK}; zet de huisletter of toevoeging in \`toevoeging\`, bijvoorbeeld huisnummer ${nummer} en toevoeging ${toevoeging}`;
}

/** The contract publishes the house number as text; an integer (as answers return it) is accepted too. */
export const huisnummerSchema = z
  .union([z.string().regex(HUISNUMMER_RE, { error: (iss) => huisnummerFout(iss.input) }), z.int(HUISNUMMER_BEREIK).min(1, HUISNUMMER_BEREIK).max(99999, HUISNUMMER_BEREIK)], {
    error: (iss) =>
      iss.code !== 'invalid_union' ? undefined : typeof iss.input === 'number' || typeof iss.input === 'string' ? huisnummerFout(iss.input) : 'verwacht het huisnummer als tekst, zoals "12"',
  })
  .meta({
    override: ({ jsonSchema }) => {
      delete jsonSchema.anyOf;
      Object.assign(jsonSchema, { type: 'string', pattern: HUISNUMMER_RE.source });
    },
  })
  .transform((v) => Number(v))
  .meta({ description: 'Huisnummer als tekst, 1 tot en met 99999 (een geheel getal wordt ook aanvaard).', examples: ['12'] });

export const toevoegingSchema = z
  .string({ error: 'verwacht tekst of null' })
  .max(TOEVOEGING_MAX, `ongeldige toevoeging: hoogstens ${TOEVOEGING_MAX} tekens`)
  // biome-ignore lint/complexity/noUselessEscapeInRegex: the published OpenAPI pattern carries this escape
  .regex(/^[0-9A-Za-z \-]*$/, 'ongeldige toevoeging: alleen letters, cijfers, spatie en streepje')
  .nullable()
  .optional()
  .meta({ description: 'Huisletter en/of huisnummertoevoeging: `A`, `2`, `A-2`, `A 2`. Leeg telt als geen toevoeging.', examples: ['A'] })
  // Without a letter or digit ("", " ", "-") it is no toevoeging; 'a2', 'A 2' and 'A-2' are one: the same request, fingerprint and charge.
  .transform((v) => (v == null ? v : toevoegingVergelijkvorm(v) ? toevoegingNormaal(v) : null));

export const adresInvoerSchema = z
  .strictObject({ postcode: postcodeSchema, huisnummer: huisnummerSchema, toevoeging: toevoegingSchema }, { error: (iss) => (iss.code === 'invalid_type' ? 'verwacht een object met postcode en huisnummer' : undefined) })
  .meta({ id: 'AdresInvoer' });

export type AdresInvoer = z.output<typeof adresInvoerSchema>;

export const adresUitvoerSchema = z
  .object({
    weergave: z.string().describe('Straat 12A-2, 1234 AB Plaats'),
    postcode: z.string(),
    huisnummer: z.int(),
    toevoeging: z.string().nullable().describe('Wat in `weergave` op het huisnummer volgt: huisletter `A`, toevoeging `-2`, beide `A-2`; zo teruggestuurd bereikt het hetzelfde adres.'),
  })
  .meta({ id: 'Adres' });

export const bronSchema = z
  .object({ naam: z.string().describe('Gegevensbron'), datum: z.string().nullable().describe('Stand van de bron, Y-m-d') })
  .nullable()
  .meta({ id: 'Bron' });

export function inzichtMetaSchema(voorziening: string) {
  return z.object({
    schema: z.string().describe("Schemafamilie van inzicht; eindigt op '/inzicht'."),
    schema_versie: z.literal(SCHEMA_VERSIE),
    voorziening: z.literal(voorziening),
    cached: z.boolean().describe('Of het antwoord een bewaard eerder antwoord is (idempotente herhaling).'),
    gefactureerd_cent: z.int().describe('Voor deze aanroep in rekening gebracht, in centen.'),
    bron: bronSchema.optional(),
    test: z.literal(true).optional().describe('Alleen bij een testsleutel (pct_test_...): een antwoord uit de synthetische demoplaats, niet in rekening gebracht (gefactureerd_cent 0).'),
  }).catchall(z.unknown());
}

export function envelope<T extends z.ZodType>(id: string, voorziening: string, data: T) {
  return z.object({ data, meta: inzichtMetaSchema(voorziening) }).meta({ id });
}

export function lookupInvoer<S extends z.ZodRawShape>(extra: S) {
  return z.strictObject({ adres: adresInvoerSchema, ...extra }, { error: (iss) => (iss.code === 'invalid_type' ? 'verwacht een JSON-object met een veld adres' : undefined) });
}

export const idempotencyHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).regex(IDEMPOTENCY_KEY_RE).optional().describe('1 tot 255 zichtbare ASCII-tekens (niet leeg). Maakt de opvraging 24 uur idempotent per voorziening: dezelfde sleutel en body geven het bewaarde antwoord terug zonder opnieuw te rekenen.'),
});

/** Texts the same for every operation come from the error table. */
export function foutResponses(extra: Record<number, string> = {}): Record<number, string> {
  return {
    400: 'Ongeldige invoer (postcode, huisnummer, JSON).',
    ...foutBeschrijvingen([401, 402, 403]),
    404: 'Adres onbekend, of toevoeging dubbelzinnig (de melding noemt de geldige toevoegingen), of een testsleutel op een adres buiten de demoplaats. Niet in rekening gebracht.',
    ...foutBeschrijvingen([409, 429]),
    ...extra,
  };
}
