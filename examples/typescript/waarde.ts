/**
 * The Insight API from TypeScript with a typed client: types generated from the OpenAPI document
 * (openapi-typescript, `npm run client:types`), requests through openapi-fetch. Paths, bodies and
 * answers are checked by the compiler.
 *   npm run voorbeeld:typescript      (INSIGHT_URL, default http://127.0.0.1:3000; INSIGHT_KEY, default the demo key)
 */
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import type { paths } from './insight-api.d.ts';

const client = createClient<paths>({
  baseUrl: `${process.env.INSIGHT_URL ?? 'http://127.0.0.1:3000'}/api/v1`,
  headers: { Authorization: `Bearer ${process.env.INSIGHT_KEY ?? readFileSync('data/demo-sleutel.txt', 'utf8').trim()}` },
});

const { data, error, response } = await client.POST('/inzicht/waarde', {
  body: { adres: { postcode: '7800SD', huisnummer: '3' } },
});
if (error) {
  console.error(`${response.status}: ${error.fout}`);
  process.exit(1);
}
const { adres, marktwaarde, min, max, betrouwbaarheid } = data.data;
console.log(JSON.stringify({
  weergave: adres.weergave,
  marktwaarde,
  band: [min, max],
  betrouwbaarheid,
  gefactureerd_cent: data.meta.gefactureerd_cent,
  saldo_credits: Number(response.headers.get('Insight-Saldo-Credits')),
}));
