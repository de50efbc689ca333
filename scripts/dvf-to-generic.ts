/**
 * Convert a geo-DVF file (French government property transactions, "Demandes de valeurs
 * foncières" by DGFiP, geolocated by Etalab; Licence Ouverte 2.0) to the sales CSV of
 * `insight import verkopen` / `insight backtest` (docs/import-formaten.md).
 *
 *   node scripts/dvf-to-generic.ts <geo-dvf.csv> [out.csv]
 *
 * A DVF row is one lot of one mutation; the price (`valeur_fonciere`) is the whole mutation's. So:
 * - a sale is one `id_mutation`; only plain sales (`nature_mutation` = Vente) of exactly one
 *   dwelling (Maison or Appartement; the same lot listed twice, once per parcel, is one dwelling)
 *   are kept, a mutation of several dwellings has no price per dwelling;
 * - a price per m2 outside 1,000–50,000 EUR is a data error or not a market sale, and is dropped;
 * - id: `id_mutation`; object_id: parcel + lot number (repeat sales of a flat share it);
 *   datum: `date_mutation`; prijs: `valeur_fonciere`; oppervlakte: `surface_reelle_bati`;
 *   perceel: `surface_terrain` for a Maison (an apartment's is the whole building's plot);
 *   woningtype: Appartement -> 'appartement', Maison -> 'vrijstaand' (DVF does not say whether a
 *   house is attached); no build year, no energy label; lat/lon: `latitude`/`longitude`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { formatSalesCsv } from '../src/domain/valuation/backtest/sales-csv.ts';
import type { SaleRecord } from '../src/domain/valuation/types.ts';

const [input, uit] = process.argv.slice(2);
if (!input) {
  console.error('Gebruik: node scripts/dvf-to-generic.ts <geo-dvf.csv> [uit.csv]');
  process.exit(2);
}
const output = uit ?? 'dvf-sales.csv';

const rows = parse(readFileSync(input, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
const perMutatie = new Map<string, Record<string, string>[]>();
for (const r of rows) {
  const list = perMutatie.get(r.id_mutation);
  if (list) list.push(r);
  else perMutatie.set(r.id_mutation, [r]);
}

const telling = { mutaties: perMutatie.size, geenVerkoop: 0, meerWoningen: 0, prijsPerM2: 0 };
const sales: SaleRecord[] = [];
for (const [id, lots] of perMutatie) {
  const r = lots[0];
  if (r.nature_mutation !== 'Vente') {
    telling.geenVerkoop++;
    continue;
  }
  const woningen = lots.filter((l) => l.type_local === 'Maison' || l.type_local === 'Appartement');
  const sleutels = new Set(woningen.map((l) => `${l.type_local}|${l.surface_reelle_bati}|${l.lot1_numero}|${l.adresse_numero}|${l.adresse_nom_voie}`));
  if (sleutels.size !== 1) {
    telling.meerWoningen++;
    continue;
  }
  const w = woningen[0];
  const prijs = Math.round(Number(r.valeur_fonciere));
  const opp = Number(w.surface_reelle_bati);
  const perM2 = prijs / opp;
  if (!(opp > 0) || !(perM2 >= 1000 && perM2 <= 50_000)) {
    telling.prijsPerM2++;
    continue;
  }
  const huis = w.type_local === 'Maison';
  const terrein = Number(w.surface_terrain);
  sales.push({
    id,
    datum: r.date_mutation.slice(0, 10),
    prijs,
    oppervlakte: opp,
    perceel: huis && terrein > 0 ? terrein : null,
    bouwjaar: null,
    woningtype: huis ? 'vrijstaand' : 'appartement',
    energielabel: null,
    lat: Number(w.latitude),
    lon: Number(w.longitude),
    objectId: `${w.id_parcelle}|${w.lot1_numero || w.adresse_numero}`,
  });
}
sales.sort((a, b) => (a.datum < b.datum ? -1 : a.datum > b.datum ? 1 : a.id < b.id ? -1 : 1));
writeFileSync(output, formatSalesCsv(sales));
console.log(
  `${sales.length} verkopen -> ${output} (${sales.filter((s) => s.woningtype === 'appartement').length} appartement; van ${telling.mutaties} mutaties: ` +
    `${telling.geenVerkoop} geen gewone verkoop, ${telling.meerWoningen} met meer dan één woning, ${telling.prijsPerM2} met een prijs per m² buiten 1.000–50.000)`,
);
