/**
 * SSRF guard for webhook URLs (OWASP SSRF prevention): https only, no credentials in the URL, and every
 * A/AAAA record of the host must be a public unicast address — no private, loopback, link-local, CGNAT,
 * multicast, unspecified, reserved or cloud-metadata address, also not hidden in an IPv4-mapped IPv6
 * address. Checked at registration and again before every send; the sender then connects to exactly the
 * address checked here (no second DNS lookup between check and connect, so DNS rebinding cannot slip in).
 *
 * `onveilig` (WEBHOOK_ALLOW_INSECURE, development and tests only) allows http:// and loopback targets.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface OpgelostAdres {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses; injectable so tests can play a hostile DNS. */
export type Resolver = (host: string) => Promise<OpgelostAdres[]>;

export const systeemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export interface GecontroleerdDoel {
  url: URL;
  /** The host name for SNI and the Host header (without IPv6 brackets). */
  host: string;
  /** The checked address the request must connect to. */
  adres: OpgelostAdres;
}

export class OngeldigDoel extends Error {}

/** ipaddr.js ranges that are never a webhook target (everything but `unicast`). */
function verbodenBereik(ip: string, onveilig: boolean): string | null {
  let a = ipaddr.parse(ip);
  // ::ffff:127.0.0.1 is 127.0.0.1: judge the IPv4 address inside.
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  const bereik = a.range();
  if (bereik === 'unicast') {
    // Cloud metadata names that live on public-looking space (Alibaba 100.100.100.200 is CGNAT already).
    if (a.toString() === '192.0.0.192') return 'metadata';
    return null;
  }
  if (onveilig && bereik === 'loopback') return null;
  return bereik;
}

const MAX_URL = 2048;

/** Check the URL's form only (scheme, credentials, length); no DNS. Throws OngeldigDoel with a Dutch message. */
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

/**
 * The full check: form, then every address the host resolves to. Returns the first address to connect to.
 * A host that does not resolve is refused too (nothing to check, nothing to send to).
 */
export async function controleerDoel(tekst: string, opts: { onveilig: boolean; resolver?: Resolver }): Promise<GecontroleerdDoel> {
  const url = controleerVorm(tekst, opts.onveilig);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let adressen: OpgelostAdres[];
  if (isIP(host)) {
    adressen = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      adressen = await (opts.resolver ?? systeemResolver)(host);
    } catch {
      throw new OngeldigDoel(`url: de host ${host} is niet te vinden.`);
    }
    if (adressen.length === 0) throw new OngeldigDoel(`url: de host ${host} is niet te vinden.`);
  }
  for (const a of adressen) {
    let bereik: string | null;
    try {
      bereik = verbodenBereik(a.address, opts.onveilig);
    } catch {
      bereik = 'ongeldig';
    }
    if (bereik) {
      throw new OngeldigDoel(`url: ${host} wijst naar een niet-openbaar adres (${a.address}, ${bereik}); alleen openbare adressen zijn toegestaan.`);
    }
  }
  return { url, host, adres: adressen[0] };
}
