import { describe, expect, it } from 'vitest';
import { kostTekst, PRIJZEN, prijsTekst } from '../../src/core/prijzen.ts';
import { MCP_TOOLS } from '../../src/gateways/mcp/tools.ts';

/** The MCP tools are built from the procedures' meta; their prices come from the one price table. */
describe('MCP tools from procedure meta', () => {
  const voorziening: Record<string, keyof typeof PRIJZEN> = { property_value: 'waarde', property_address: 'adres', woz: 'woz', influences: 'invloeden' };

  it('has one tool per procedure with MCP meta, each stating its price from core/prijzen.ts', () => {
    expect(MCP_TOOLS.map((t) => t.name).sort()).toEqual(Object.keys(voorziening).sort());
    for (const t of MCP_TOOLS) {
      // Issue 24 item 18: credits and euros, `Kost 18 credits (€ 0,90)`.
      expect(t.description).toContain(`Kost ${kostTekst(voorziening[t.name])}`);
      expect(Object.keys(t.inputShape).slice(0, 3)).toEqual(['postcode', 'huisnummer', 'toevoeging']);
    }
  });

  it('states a price of 18 credits as € 0,90', () => {
    expect(prijsTekst(18)).toBe('€ 0,90');
    expect(prijsTekst(PRIJZEN.invloeden)).toBe('€ 0,80');
  });
});
