/**
 * Examples of the OpenAPI document: the README's demo addresses sent through the real app, written by
 * `npm run openapi:voorbeelden`; test/demo-voorbeelden.test.ts checks they are what the demo answers.
 */
import type { FastifyInstance } from 'fastify';
import { DEMO_ADRESSEN, type DemoGeval } from '../domain/register/demo/index.ts';

export const VOORBEELD_MOMENT = new Date('2026-11-22T10:00:00+01:00');

export interface Voorbeeld {
  methode: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  pad: string;
  status: number;
  verzoek?: unknown;
  antwoord: unknown;
}

function adres(g: DemoGeval) {
  const a = DEMO_ADRESSEN.find((x) => x.geval === g)!;
  const toevoeging = a.huisletter && a.toevoeging ? `${a.huisletter}-${a.toevoeging}` : (a.huisletter ?? (a.toevoeging ? `-${a.toevoeging}` : null));
  return { postcode: a.postcode, huisnummer: String(a.huisnummer), ...(toevoeging ? { toevoeging } : {}) };
}

/** `arm`: sent with the key of an account without credits. */
const VRAGEN: { methode: 'GET' | 'POST'; pad: string; status: number; verzoek?: unknown; sleutel?: 'geen' | 'arm' }[] = [
  { methode: 'GET', pad: '/whoami', status: 200 },
  { methode: 'POST', pad: '/inzicht/waarde', status: 200, verzoek: { adres: adres('waardering') } },
  { methode: 'POST', pad: '/inzicht/waarde', status: 422, verzoek: { adres: adres('te-weinig-verkopen') } },
  { methode: 'POST', pad: '/inzicht/waarde', status: 402, verzoek: { adres: adres('waardering') }, sleutel: 'arm' },
  { methode: 'POST', pad: '/inzicht/adres', status: 200, verzoek: { adres: adres('appartement') } },
  { methode: 'POST', pad: '/inzicht/adres', status: 404, verzoek: { adres: adres('meerduidige-toevoeging') } },
  { methode: 'POST', pad: '/inzicht/adres', status: 400, verzoek: { adres: { postcode: '0123AB', huisnummer: '1' } } },
  { methode: 'POST', pad: '/inzicht/woz', status: 200, verzoek: { adres: adres('waardering') } },
  { methode: 'POST', pad: '/inzicht/energielabel', status: 200, verzoek: { adres: adres('waardering') } },
  { methode: 'POST', pad: '/inzicht/woningtype', status: 200, verzoek: { adres: adres('letter-of-toevoeging') } },
  { methode: 'POST', pad: '/inzicht/invloeden', status: 200, verzoek: { adres: adres('natura2000-oranje') } },
  { methode: 'POST', pad: '/inzicht/woz', status: 401, verzoek: { adres: adres('waardering') }, sleutel: 'geen' },
  { methode: 'GET', pad: '/verbruik?limiet=2', status: 200 },
];

/** An IP literal: registering it needs no DNS. */
const VOORBEELD_WEBHOOK_URL = 'https://93.184.215.14/insight-webhook';

export async function verzamelVoorbeelden(app: FastifyInstance, sleutel: string, armeSleutel: string): Promise<Voorbeeld[]> {
  const uit: Voorbeeld[] = [];
  async function vraag(methode: Voorbeeld['methode'], pad: string, status: number, opts: { url?: string; verzoek?: unknown; key?: string } = {}) {
    const res = await app.inject({
      method: methode,
      url: `/api/v1${opts.url ?? pad}`,
      headers: { ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}), ...(opts.verzoek ? { 'content-type': 'application/json' } : {}) },
      ...(opts.verzoek ? { payload: JSON.stringify(opts.verzoek) } : {}),
    });
    if (res.statusCode !== status) throw new Error(`${methode} ${opts.url ?? pad}: ${res.statusCode} in plaats van ${status}: ${res.body}`);
    const antwoord = res.json();
    uit.push({ methode, pad: pad.split('?')[0], status, ...(opts.verzoek ? { verzoek: opts.verzoek } : {}), antwoord });
    return antwoord as { data: Record<string, string> & { id: string } };
  }
  for (const v of VRAGEN) {
    const key = v.sleutel === 'geen' ? undefined : v.sleutel === 'arm' ? armeSleutel : sleutel;
    await vraag(v.methode, v.pad, v.status, { verzoek: v.verzoek, key });
  }
  const nieuw = { url: VOORBEELD_WEBHOOK_URL, events: ['inzicht.voltooid', 'saldo.laag'], omschrijving: 'CRM van het kantoor' };
  const { id } = (await vraag('POST', '/webhooks', 200, { verzoek: nieuw, key: sleutel })).data;
  await vraag('GET', '/webhooks', 200, { key: sleutel });
  await vraag('GET', '/webhooks/{id}', 200, { url: `/webhooks/${id}`, key: sleutel });
  await vraag('PATCH', '/webhooks/{id}', 200, { url: `/webhooks/${id}`, verzoek: { omschrijving: 'CRM (productie)' }, key: sleutel });
  const { aflevering_id } = (await vraag('POST', '/webhooks/{id}/test', 200, { url: `/webhooks/${id}/test`, key: sleutel })).data;
  await vraag('GET', '/webhooks/{id}/afleveringen', 200, { url: `/webhooks/${id}/afleveringen`, key: sleutel });
  await vraag('POST', '/webhooks/{id}/afleveringen/{aflevering}/opnieuw', 200, { url: `/webhooks/${id}/afleveringen/${aflevering_id}/opnieuw`, key: sleutel });
  await vraag('POST', '/webhooks/{id}/geheim-roteren', 200, { url: `/webhooks/${id}/geheim-roteren`, key: sleutel });
  await vraag('DELETE', '/webhooks/{id}', 200, { url: `/webhooks/${id}`, key: sleutel });
  return uit;
}

/** Values that differ per key or per run: masked for comparison. */
export function maskeer(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v), (k, w) =>
    ['voorvoegsel', 'verloopt_op', 'verzoek_id', 'id', 'tijdstip', 'aangemaakt_op', 'volgende', 'sleutel_voorvoegsel', 'naam', 'geheim', 'gebeurtenis_id', 'aflevering_id', 'volgende_poging', 'vorig_geheim_geldig_tot'].includes(k) && typeof w === 'string' ? '…' : w,
  );
}
