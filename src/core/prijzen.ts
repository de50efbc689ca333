/** The price table (decisions section 1): credits per lookup; 1 credit = 5 cent. */
export const PRIJZEN = {
  waarde: 18,
  adres: 1,
  woz: 1,
  energielabel: 1,
  woningtype: 1,
  invloeden: 16,
} as const;

export type Voorziening = keyof typeof PRIJZEN;
