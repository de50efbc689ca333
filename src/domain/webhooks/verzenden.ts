/**
 * One webhook POST, signed per Standard Webhooks, to the address the SSRF guard checked, with a hard overall
 * timeout, no redirects (a 3xx is a failure) and at most MAX_ANTWOORD bytes of the answer read.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import pTimeout from 'p-timeout';
import { Webhook } from 'standardwebhooks';
import { controleerDoel, OngeldigDoel, type GecontroleerdDoel, type Resolver } from './doeladres.ts';

export const TIMEOUT_MS = 15_000;
const MAX_ANTWOORD = 16 * 1024;

export interface Bericht {
  id: string;
  body: string;
  url: string;
  geheimen: string[];
}

export type Uitslag =
  | { soort: 'ok'; status: number }
  | { soort: 'weg'; status: 410 }
  | { soort: 'fout'; status: number | null; fout: string };

/** Two during a rotation. */
export function ondertekening(b: Pick<Bericht, 'id' | 'body' | 'geheimen'>, tijd: Date): string {
  return b.geheimen.map((g) => new Webhook(g).sign(b.id, tijd, b.body)).join(' ');
}

export const CONTROLE_GELDIG_MS = 5_000;
/** Shorter than many servers' 5 s keep-alive, so a reused socket is rarely one being closed. */
const VRIJ_SOCKET_MS = 4_000;

/**
 * An agent's sockets all go to the one address it was made for, used only while the URL's current check
 * (at most CONTROLE_GELDIG_MS old) yields that address: nothing connects to an unchecked address.
 */
export class Verbindingen {
  private readonly doelen = new Map<string, { doel: Promise<GecontroleerdDoel>; tot: number }>();
  private readonly agents = new Map<string, { agent: http.Agent; gebruikt: number }>();

  private readonly o: { onveilig: boolean; resolver?: Resolver; geldigMs?: number };

  constructor(o: { onveilig: boolean; resolver?: Resolver; geldigMs?: number }) {
    this.o = o;
  }

  /** A check still in progress is shared too (its validity counts from its start); a failed one is not kept. */
  doel(url: string): Promise<GecontroleerdDoel> {
    const nu = performance.now();
    const c = this.doelen.get(url);
    if (c && c.tot > nu) return c.doel;
    if (this.doelen.size >= 1000) for (const [k, v] of this.doelen) if (v.tot <= nu) this.doelen.delete(k);
    const doel = controleerDoel(url, { onveilig: this.o.onveilig, resolver: this.o.resolver });
    const item = { doel, tot: nu + (this.o.geldigMs ?? CONTROLE_GELDIG_MS) };
    this.doelen.set(url, item);
    doel.catch(() => {
      if (this.doelen.get(url) === item) this.doelen.delete(url);
    });
    return doel;
  }

  agent(doel: GecontroleerdDoel): http.Agent {
    const sleutel = `${doel.url.protocol}//${doel.url.host}|${doel.adres.address}`;
    const nu = performance.now();
    let a = this.agents.get(sleutel);
    if (!a) {
      for (const [k, v] of this.agents) {
        if (v.gebruikt < nu - 60_000) {
          v.agent.destroy();
          this.agents.delete(k);
        }
      }
      const opties = { keepAlive: true, timeout: VRIJ_SOCKET_MS, scheduling: 'lifo' as const };
      a = { agent: doel.url.protocol === 'https:' ? new https.Agent(opties) : new http.Agent(opties), gebruikt: nu };
      this.agents.set(sleutel, a);
    }
    a.gebruikt = nu;
    return a.agent;
  }

  sluit(): void {
    for (const a of this.agents.values()) a.agent.destroy();
    this.agents.clear();
    this.doelen.clear();
  }
}

export async function verstuur(
  b: Bericht,
  opts: { now: Date; onveilig: boolean; resolver?: Resolver; timeoutMs?: number; signal?: AbortSignal; verbindingen?: Verbindingen },
): Promise<Uitslag> {
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
  const begin = performance.now();
  let gevonden: GecontroleerdDoel | null;
  try {
    gevonden = await pTimeout(
      opts.verbindingen ? opts.verbindingen.doel(b.url) : controleerDoel(b.url, { onveilig: opts.onveilig, resolver: opts.resolver }),
      { milliseconds: timeoutMs, fallback: () => null },
    );
  } catch (e) {
    if (e instanceof OngeldigDoel) return { soort: 'fout', status: null, fout: `Niet verstuurd: ${e.message}` };
    throw e;
  }
  if (!gevonden) return { soort: 'fout', status: null, fout: `Niet verstuurd: de host is niet binnen ${timeoutMs / 1000} s opgezocht.` };
  const doel = gevonden;
  const tijd = opts.now;
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Insight-Webhooks/1',
    'webhook-id': b.id,
    'webhook-timestamp': String(Math.floor(tijd.getTime() / 1000)),
    'webhook-signature': ondertekening(b, tijd),
    'content-length': String(Buffer.byteLength(b.body)),
  };
  // On the next tick, as dns.lookup: else a connect refused at once (no route) crashed inside tls.connect.
  const vast: LookupFunction = (_host, options, cb) => {
    const o = options as { all?: boolean };
    if (o.all) process.nextTick(cb as unknown as (e: null, a: { address: string; family: number }[]) => void, null, [doel.adres]);
    else process.nextTick(cb, null, doel.adres.address, doel.adres.family);
  };
  const mod = doel.url.protocol === 'https:' ? https : http;
  const agent = opts.verbindingen ? opts.verbindingen.agent(doel) : false;
  return new Promise<Uitslag>((resolve) => {
    let klaar = false;
    let req: http.ClientRequest;
    const einde = (u: Uitslag, sluitVerbinding = true) => {
      if (klaar) return;
      klaar = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', afbreken);
      // A complete answer leaves its socket to the agent; anything else closes it.
      const socket = req.socket;
      if (sluitVerbinding) req.destroy();
      if (sluitVerbinding && socket && !socket.closed) socket.once('close', () => resolve(u));
      else resolve(u);
    };
    const verzend = (opnieuw: boolean) => {
      req = mod.request(
        doel.url,
        { method: 'POST', headers, lookup: vast, servername: doel.host, agent, timeout: timeoutMs },
        (res) => {
          const status = res.statusCode ?? 0;
          let gelezen = 0;
          res.on('data', (c: Buffer) => {
            gelezen += c.length;
            if (gelezen > MAX_ANTWOORD) res.destroy();
          });
          const klaarMet = (heel: boolean) => {
            if (status >= 200 && status < 300) einde({ soort: 'ok', status }, !heel);
            else if (status === 410) einde({ soort: 'weg', status: 410 }, !heel);
            else if (status >= 300 && status < 400) einde({ soort: 'fout', status, fout: `Doorverwijzing (${status}) wordt niet gevolgd.` }, !heel);
            else einde({ soort: 'fout', status, fout: `Ontvanger antwoordde ${status}.` }, !heel);
          };
          res.on('end', () => klaarMet(true));
          res.on('close', () => klaarMet(false));
          res.on('error', () => klaarMet(false));
        },
      );
      req.on('error', (e) => {
        const code = (e as NodeJS.ErrnoException).code;
        // A kept-alive socket closed as it was reused: once more on a fresh one (receivers dedupe by webhook-id).
        if (!opnieuw && !klaar && req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) {
          verzend(true);
          return;
        }
        einde({ soort: 'fout', status: null, fout: `Verbinding mislukt: ${code ?? e.message}` });
      });
      req.end(b.body);
    };
    const timer = setTimeout(
      () => einde({ soort: 'fout', status: null, fout: `Geen antwoord binnen ${timeoutMs / 1000} s.` }),
      Math.max(0, timeoutMs - (performance.now() - begin)),
    );
    const afbreken = () => einde({ soort: 'fout', status: null, fout: 'Afgebroken bij het afsluiten van de server.' });
    opts.signal?.addEventListener('abort', afbreken);
    verzend(false);
  });
}
