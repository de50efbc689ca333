/**
 * The requests of one load scenario (`bench:profiel`, `bench:ab`): request `n` of a run goes out with
 * key `n mod K` and address `n mod A`. MCP calls are idempotent per key by a fingerprint of tool and
 * arguments (core/afrekening.ts), so a (key, address) pair seen before is answered from the stored
 * answer without a valuation or a charge: with A = ADRESSEN, a prime, and fewer keys than that, the
 * first A·K requests of a run are all different pairs, as long as the caller keeps counting `n`
 * across its turns (and gives each run fresh keys).
 */
export interface ScenarioVerzoek {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** Authorization and body of request `n`. */
  verzoek(n: number): { authorization: string; body?: string };
}

export const SCENARIOS = ['whoami', 'woz', 'waarde', 'mcp'] as const;

/**
 * Addresses a scenario cycles through: a prime, so that (key, address) pairs repeat only after ADRESSEN ×
 * keys requests (79,784 with 8 keys: more than a side of `bench:ab` sends in a scenario at 2,000 req/s;
 * with 1,999 they repeated after 15,992, and later turns of MCP measured stored answers).
 */
export const ADRESSEN = 9973;

export function scenarioVerzoek(naam: string, keys: string[], adressen: { postcode: string; huisnummer: string }[]): ScenarioVerzoek {
  if (adressen.length < ADRESSEN) throw new Error(`${adressen.length} adressen, ${ADRESSEN} nodig: de (sleutel, adres)-paren zouden zich te vroeg herhalen`);
  if (keys.length >= adressen.length) throw new Error(`${keys.length} sleutels voor ${adressen.length} adressen: de paren herhalen zich meteen`);
  const auth = (n: number) => `Bearer ${keys[n % keys.length]}`;
  const adres = (n: number) => adressen[n % adressen.length];
  const json = { 'content-type': 'application/json' };
  switch (naam) {
    case 'whoami':
      return { method: 'GET', path: '/api/v1/whoami', headers: {}, verzoek: (n) => ({ authorization: auth(n) }) };
    case 'woz':
    case 'waarde':
      return { method: 'POST', path: `/api/v1/inzicht/${naam}`, headers: json, verzoek: (n) => ({ authorization: auth(n), body: JSON.stringify({ adres: adres(n) }) }) };
    case 'mcp':
      return {
        method: 'POST',
        path: '/mcp',
        headers: { ...json, accept: 'application/json, text/event-stream' },
        verzoek: (n) => ({
          authorization: auth(n),
          body: JSON.stringify({ jsonrpc: '2.0', id: n + 1, method: 'tools/call', params: { name: 'property_value', arguments: adres(n) } }),
        }),
      };
    default:
      throw new Error(`onbekend scenario ${naam} (${SCENARIOS.join(', ')})`);
  }
}
