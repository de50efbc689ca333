/**
 * SSRF guard (OWASP): https only, no credentials, and every A/AAAA record must be public unicast, also inside
 * an IPv4-mapped address. Checked at registration and before every send; the sender connects to exactly
 * the address checked, so DNS rebinding cannot slip in. `onveilig`: development and tests only.
 */
import { Resolver as DnsResolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface OpgelostAdres {
  address: string;
  family: 4 | 6;
}

/** Injectable so tests can play a hostile DNS. */
export type Resolver = (host: string) => Promise<OpgelostAdres[]>;

/** A and AAAA from DNS (c-ares), time-bounded; not getaddrinfo, whose thread-pool slots a silent DNS held for all. */
export function dnsResolver(opts: { servers?: string[]; timeoutMs?: number; pogingen?: number } = {}): Resolver {
  const dns = new DnsResolver({ timeout: opts.timeoutMs ?? 2_500, tries: opts.pogingen ?? 2 });
  if (opts.servers) dns.setServers(opts.servers);
  return async (host) => {
    const [v4, v6] = await Promise.allSettled([dns.resolve4(host), dns.resolve6(host)]);
    const adressen: OpgelostAdres[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (adressen.length === 0 && v4.status === 'rejected') throw v4.reason;
    return adressen;
  };
}

export const systeemResolver: Resolver = dnsResolver();

export interface GecontroleerdDoel {
  url: URL;
  /** Without IPv6 brackets. */
  host: string;
  adres: OpgelostAdres;
}

export class OngeldigDoel extends Error {}

const METADATA = new Set(['192.0.0.192', '168.63.129.16']);

function verbodenBereik(ip: string, onveilig: boolean): string | null {
  let a = ipaddr.parse(ip);
  if (a.kind() === 'ipv6') {
    const v6 = a as ipaddr.IPv6;
    const [, , , , , , hoog, laag] = v6.parts;
    // IPv4-compatible (::a.b.c.d, RFC 4291 deprecated; ipaddr.js calls it unicast) is judged by the IPv4 address it carries.
    const compatibel = v6.parts.slice(0, 6).every((p) => p === 0) && (hoog !== 0 || laag > 1);
    if (v6.isIPv4MappedAddress()) a = v6.toIPv4Address();
    else if (compatibel) a = new ipaddr.IPv4([hoog >> 8, hoog & 255, laag >> 8, laag & 255]);
  }
  const bereik = a.range();
  if (bereik === 'unicast') {
    // Cloud platform endpoints on public-looking space: Oracle's metadata, Azure's WireServer.
    if (METADATA.has(a.toString())) return 'metadata';
    return null;
  }
  if (onveilig && bereik === 'loopback') return null;
  return bereik;
}

const MAX_URL = 2048;

/** No DNS. */
export function controleerVorm(tekst: string, onveilig: boolean): URL {
  if (tekst.length > MAX_URL) throw new OngeldigDoel(`url: hoogstens ${MAX_URL} tekens.`);
  let url: URL;
  try {
    url = new URL(tekst);
  } catch {
    throw new OngeldigDoel('url: geen geldige URL.');
  }
  if (url.protocol !== 'https:' && !(onveilig && url.protocol === 'http:')) {
    throw new OngeldigDoel('url: alleen https:// is toegestaan.');
  }
  if (url.username || url.password) throw new OngeldigDoel('url: een URL met gebruikersnaam of wachtwoord is niet toegestaan.');
  if (url.hash) throw new OngeldigDoel('url: een URL met een #-fragment is niet toegestaan.');
  if (!url.hostname) throw new OngeldigDoel('url: de host ontbreekt.');
  return url;
}

/** One refusal for a host name that is not found or not public: naming either would expose the server's own DNS. */
export async function controleerDoel(tekst: string, opts: { onveilig: boolean; resolver?: Resolver }): Promise<GecontroleerdDoel> {
  const url = controleerVorm(tekst, opts.onveilig);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const letterlijk = isIP(host) !== 0;
  const nietBereikbaar = () => new OngeldigDoel(`url: de host ${host} is niet te vinden of wijst niet naar een openbaar adres; alleen openbare adressen zijn toegestaan.`);
  let adressen: OpgelostAdres[];
  if (letterlijk) {
    adressen = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      adressen = await (opts.resolver ?? systeemResolver)(host);
    } catch {
      throw nietBereikbaar();
    }
    if (adressen.length === 0) throw nietBereikbaar();
  }
  for (const a of adressen) {
    let bereik: string | null;
    try {
      bereik = verbodenBereik(a.address, opts.onveilig);
    } catch {
      bereik = 'ongeldig';
    }
    if (bereik && !letterlijk) throw nietBereikbaar();
    if (bereik) throw new OngeldigDoel(`url: ${host} is een niet-openbaar adres (${bereik}); alleen openbare adressen zijn toegestaan.`);
  }
  return { url, host, adres: adressen[0] };
}
