/** The requests of one load scenario (`bench:profiel`, `bench:ab`): a different address per request, MCP with different arguments. */
export interface ScenarioVerzoek {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: () => string;
}

export const SCENARIOS = ['whoami', 'woz', 'waarde', 'mcp'] as const;

export function scenarioVerzoek(naam: string, key: string, adressen: { postcode: string; huisnummer: string }[]): ScenarioVerzoek {
  let i = 0;
  let rpc = 0;
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const volgend = () => adressen[i++ % adressen.length];
  switch (naam) {
    case 'whoami':
      return { method: 'GET', path: '/api/v1/whoami', headers: { authorization: auth.authorization } };
    case 'woz':
    case 'waarde':
      return { method: 'POST', path: `/api/v1/inzicht/${naam}`, headers: auth, body: () => JSON.stringify({ adres: volgend() }) };
    case 'mcp':
      return {
        method: 'POST',
        path: '/mcp',
        headers: { ...auth, accept: 'application/json, text/event-stream' },
        body: () => JSON.stringify({ jsonrpc: '2.0', id: ++rpc, method: 'tools/call', params: { name: 'property_value', arguments: volgend() } }),
      };
    default:
      throw new Error(`onbekend scenario ${naam} (${SCENARIOS.join(', ')})`);
  }
}
