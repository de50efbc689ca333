/**
 * Finishing the generated OpenAPI document for people and linters (Spectral `oas`, Redocly `recommended`,
 * 0 warnings): the statuses and headers every route can answer, the demo examples, no ±(2^53-1) bounds.
 */
import type { OpenAPIObject } from 'trpc-to-openapi';
import type { Config } from '../config/env.ts';
import { KOSTEN_HEADER, SALDO_HEADER, VERZOEK_HEADER } from '../core/kosten.ts';
import type { Voorbeeld } from './openapi-voorbeelden.ts';
import voorbeelden from './openapi-voorbeelden.json' with { type: 'json' };
import { MODEL_VERSIE } from '../domain/valuation/model.ts';

type Json = Record<string, unknown>;
const kop = (description: string, type: 'string' | 'integer' = 'string') => ({ description, schema: { type } });
const fout = (description: string, headers: Json = {}) => ({ description, headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Fout' } } } });

const TAGS = [
  { name: 'inzicht', description: 'Opvragingen per adres. Betaald uit het tegoed van het account (1 credit = 5 cent).' },
  { name: 'account', description: 'De sleutel, het saldo en het verbruik van het account. Gratis.' },
  { name: 'webhooks', description: 'Gebeurtenissen van het account (REST en MCP) naar je eigen https-URL, ondertekend volgens Standard Webhooks. Gratis.' },
];

/** Every answer after the rate limit (not a refusal before the key is read, not an outage); always on a success. */
const LIMIET_HEADERS = {
  RateLimit: kop('Resterende verzoeken en seconden tot herstel, per beleid (IETF ratelimit-headers).'),
  'RateLimit-Policy': kop('Het geldende beleid: aantal per venster van 60 seconden.'),
};
const LIMIET_HEADERS_VERPLICHT = Object.fromEntries(Object.entries(LIMIET_HEADERS).map(([naam, h]) => [naam, { ...h, required: true }]));

const ANTWOORD_HEADERS = {
  [KOSTEN_HEADER]: kop('Wat dit antwoord kostte, in centen (0 als er niets in rekening is gebracht; ook bij een fout).', 'integer'),
  [SALDO_HEADER]: kop('Het saldo in credits na dit antwoord; bij elk antwoord op een geldige sleutel.', 'integer'),
  'X-Request-Id': kop('Het id van dit HTTP-verzoek (het meegestuurde `X-Request-Id` of een nieuw), voor de logs; niet het `verzoek_id` van verbruik en webhooks.'),
};

/** Answered before the request is read (http-parser-fouten.ts): no request id, no balance; one definition for every operation. */
const VOOR_HET_LEZEN = {
  TeLaat: fout('Het verzoek (headers en body) kwam niet binnen `REQUEST_TIMEOUT_MS` binnen; de verbinding wordt gesloten.', { [KOSTEN_HEADER]: ANTWOORD_HEADERS[KOSTEN_HEADER] }),
  HeadersTeGroot: fout('De headers van het verzoek zijn te groot; de verbinding wordt gesloten.', { [KOSTEN_HEADER]: ANTWOORD_HEADERS[KOSTEN_HEADER] }),
};

const VERZOEK_ID = kop('Het `verzoek_id` van het verbruiksrecord dat dit antwoord schreef (ook in `GET /verbruik` en in de webhook-gebeurtenis); ontbreekt bij een herhaald antwoord en bij een 402 wegens onvoldoende tegoed (geen record).');
const HERHAALD = kop('`true` bij een herhaald antwoord (dezelfde Idempotency-Key, of bij MCP een identieke aanroep, binnen 24 uur): niet opnieuw gefactureerd. Ontbreekt anders.');

const WAARDE_META = {
  model_versie: { type: 'string', description: 'Versie van het waarderingsmodel.', examples: [MODEL_VERSIE] },
  data_vintage: { type: ['string', 'null'], description: 'Datum (Y-m-d) van de nieuwste verkoop in het model.' },
  index_bron: { type: 'string', description: 'Bron van de prijsindex waarmee verkopen naar de peildatum zijn geïndexeerd.' },
};

function zonderVeiligeGrenzen(v: unknown): void {
  if (Array.isArray(v)) {
    for (const x of v) zonderVeiligeGrenzen(x);
    return;
  }
  if (!v || typeof v !== 'object') return;
  const o = v as Json;
  if (o.minimum === Number.MIN_SAFE_INTEGER) delete o.minimum;
  if (o.maximum === Number.MAX_SAFE_INTEGER) delete o.maximum;
  Object.values(o).forEach(zonderVeiligeGrenzen);
}

export function werkOpenApiAf(doc: OpenAPIObject, config: Config): OpenAPIObject {
  const basis = (config.PUBLIC_BASE_URL || `http://${config.HOST}:${config.PORT}`).replace(/\/$/, '');
  doc.info.contact = { name: 'Insight API', url: `${basis}/docs` };
  doc.info.license = { name: 'MIT', identifier: 'MIT' };
  doc.externalDocs = { description: 'Interactieve documentatie', url: `${basis}/docs` };
  doc.tags = TAGS;
  zonderVeiligeGrenzen(doc);

  const schemas = (doc.components?.schemas ?? {}) as Record<string, Json>;
  const meta = (schemas.Marktwaarde?.properties as Json | undefined)?.meta as Json | undefined;
  if (meta?.properties) Object.assign(meta.properties as Json, WAARDE_META);

  doc.components = { ...doc.components, responses: { ...doc.components?.responses, ...(VOOR_HET_LEZEN as Json as NonNullable<OpenAPIObject['components']>['responses']) } };
  const alle = voorbeelden as Voorbeeld[];
  for (const [pad, item] of Object.entries(doc.paths ?? {})) {
    for (const [methode, op] of Object.entries(item as Record<string, Json>)) {
      const responses = op.responses as Record<string, Json>;
      responses['405'] = fout('Methode niet toegestaan op dit pad; `Allow` noemt de juiste.', { Allow: kop('De toegestane methoden.') });
      if (methode === 'post' || methode === 'patch') {
        responses['413'] = fout('De body is groter dan de ingestelde limiet (standaard 64 KiB).');
        responses['415'] = fout('Stuur de body als `application/json`.');
      }
      for (const [status, r] of Object.entries(responses)) {
        const geenSaldo = ['401', '405', '413', '415'].includes(status);
        r.headers = { ...(r.headers as Json | undefined), ...ANTWOORD_HEADERS };
        if (geenSaldo) delete (r.headers as Json)[SALDO_HEADER];
        if ((op.security as unknown[] | undefined)?.length && !geenSaldo && status !== '503') r.headers = { ...(status.startsWith('2') ? LIMIET_HEADERS_VERPLICHT : LIMIET_HEADERS), ...(r.headers as Json) };
        if (pad.startsWith('/inzicht/') && ['200', '402', '404', '422'].includes(status)) (r.headers as Json)[VERZOEK_HEADER] = VERZOEK_ID;
        if (pad.startsWith('/inzicht/') && ['200', '404', '422'].includes(status)) (r.headers as Json)['Idempotent-Replayed'] = HERHAALD;
        const vb = alle.find((v) => v.pad === pad && v.methode.toLowerCase() === methode && String(v.status) === status);
        const media = (r.content as Record<string, Json> | undefined)?.['application/json'];
        if (vb && media) media.examples = { demo: { summary: 'Demo-dataset (synthetisch)', value: vb.antwoord } };
      }
      Object.assign(responses, { 408: { $ref: '#/components/responses/TeLaat' }, 431: { $ref: '#/components/responses/HeadersTeGroot' } });
      const verzoek = alle.find((v) => v.pad === pad && v.methode.toLowerCase() === methode && v.verzoek !== undefined && v.status === 200);
      const body = ((op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json'];
      if (verzoek && body) body.examples = { demo: { summary: pad.startsWith('/inzicht/') ? 'Een adres uit de demo-dataset' : 'Voorbeeld', value: verzoek.verzoek } };
    }
  }
  return doc;
}
