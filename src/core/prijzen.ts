import { EENHEID_CENT } from '../domain/billing/tegoed.ts';

/** Credits per lookup (decisions section 1); 1 credit = 5 cent. The only place prices are written. */
export const PRIJZEN = {
  waarde: 18,
  adres: 1,
  woz: 1,
  energielabel: 1,
  woningtype: 1,
  invloeden: 16,
} as const;

export type Voorziening = keyof typeof PRIJZEN;


export function prijsTekst(credits: number): string {
  return `€ ${((credits * EENHEID_CENT) / 100).toFixed(2).replace('.', ',')}`;
}

export function creditsTekst(credits: number): string {
  return `${credits} ${credits === 1 ? 'credit' : 'credits'}`;
}

export function kostTekst(voorziening: Voorziening): string {
  const c = PRIJZEN[voorziening];
  return `${creditsTekst(c)} (${prijsTekst(c)})`;
}
