import { EENHEID_CENT } from '../domain/billing/tegoed.ts';

/** The price table (decisions section 1): credits per lookup; 1 credit = 5 cent. The only place prices are written. */
export const PRIJZEN = {
  waarde: 18,
  adres: 1,
  woz: 1,
  energielabel: 1,
  woningtype: 1,
  invloeden: 16,
} as const;

export type Voorziening = keyof typeof PRIJZEN;


/** An amount of credits in euro as a caller reads it: `€ 0,90`. */
export function prijsTekst(credits: number): string {
  return `€ ${((credits * EENHEID_CENT) / 100).toFixed(2).replace('.', ',')}`;
}

/** How a description states a lookup's price: `18 credits (€ 0,90)`, `1 credit (€ 0,05)`. */
export function kostTekst(voorziening: Voorziening): string {
  const c = PRIJZEN[voorziening];
  return `${c} ${c === 1 ? 'credit' : 'credits'} (${prijsTekst(c)})`;
}
