/**
 * One webhook POST: signed per Standard Webhooks (the reference `standardwebhooks` package signs),
 * sent to the address the SSRF guard checked (a fixed `lookup`, so no second DNS lookup), with a hard
 * overall timeout, no redirects followed (node:http never follows them; a 3xx is a failure), and at most
 * MAX_ANTWOORD bytes of the answer read.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { controleerDoel, OngeldigDoel, type GecontroleerdDoel, type Resolver } from './doeladres.ts';

export const TIMEOUT_MS = 15_000;
const MAX_ANTWOORD = 16 * 1024;

export interface Bericht {
  id: string;
  /** The exact body that is signed and sent. */
  body: string;
  url: string;
  geheimen: string[];
}

export type Uitslag =
  | { soort: 'ok'; status: number }
  | { soort: 'weg'; status: 410 }
  | { soort: 'fout'; status: number | null; fout: string };

/** `v1,<sig>` per secret, space-separated (two during a rotation). */
export function ondertekening(b: Pick<Bericht, 'id' | 'body' | 'geheimen'>, tijd: Date): string {
  return b.geheimen.map((g) => new Webhook(g).sign(b.id, tijd, b.body)).join(' ');
}

export async function verstuur(b: Bericht, opts: { now: Date; onveilig: boolean; resolver?: Resolver; timeoutMs?: number; signal?: AbortSignal }): Promise<Uitslag> {
  let doel: GecontroleerdDoel;
  try {
    doel = await controleerDoel(b.url, { onveilig: opts.onveilig, resolver: opts.resolver });
  } catch (e) {
    if (e instanceof OngeldigDoel) return { soort: 'fout', status: null, fout: `Niet verstuurd: ${e.message}` };
    throw e;
  }
  const tijd = opts.now;
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Insight-Webhooks/1',
    'webhook-id': b.id,
    'webhook-timestamp': String(Math.floor(tijd.getTime() / 1000)),
    'webhook-signature': ondertekening(b, tijd),
    'content-length': String(Buffer.byteLength(b.body)),
  };
  const vast: LookupFunction = (_host, options, cb) => {
    const o = options as { all?: boolean };
    if (o.all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [doel.adres]);
    else cb(null, doel.adres.address, doel.adres.family);
  };
  const mod = doel.url.protocol === 'https:' ? https : http;
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
  return new Promise<Uitslag>((resolve) => {
    let klaar = false;
    const einde = (u: Uitslag) => {
      if (klaar) return;
      klaar = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', afbreken);
      req.destroy();
      resolve(u);
    };
    const req = mod.request(
      doel.url,
      { method: 'POST', headers, lookup: vast, servername: doel.host, agent: false, timeout: timeoutMs },
      (res) => {
        const status = res.statusCode ?? 0;
        let gelezen = 0;
        res.on('data', (c: Buffer) => {
          gelezen += c.length;
          if (gelezen > MAX_ANTWOORD) res.destroy();
        });
        const klaarMet = () => {
          if (status >= 200 && status < 300) einde({ soort: 'ok', status });
          else if (status === 410) einde({ soort: 'weg', status: 410 });
          else if (status >= 300 && status < 400) einde({ soort: 'fout', status, fout: `Doorverwijzing (${status}) wordt niet gevolgd.` });
          else einde({ soort: 'fout', status, fout: `Ontvanger antwoordde ${status}.` });
        };
        res.on('end', klaarMet);
        res.on('close', klaarMet);
        res.on('error', klaarMet);
      },
    );
    // One deadline for the whole exchange: connect, send, and the answer.
    const timer = setTimeout(() => einde({ soort: 'fout', status: null, fout: `Geen antwoord binnen ${timeoutMs / 1000} s.` }), timeoutMs);
    const afbreken = () => einde({ soort: 'fout', status: null, fout: 'Afgebroken bij het afsluiten van de server.' });
    opts.signal?.addEventListener('abort', afbreken);
    req.on('error', (e) => einde({ soort: 'fout', status: null, fout: `Verbinding mislukt: ${(e as NodeJS.ErrnoException).code ?? e.message}` }));
    req.end(b.body);
  });
}
