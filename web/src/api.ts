/** The typed tRPC client of the internal /trpc router; the CSRF token rides along on every call. */
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppWebRouter } from '../../src/procedures/app/router.ts';

let csrf = '';
let email = '';
/** The signed-in user's CSRF token and e-mail address; null when signed out. */
export function zetSessie(g: { csrf: string; email: string } | null) {
  csrf = g?.csrf ?? '';
  email = g?.email ?? '';
}

/** No answer from our server: the network, or a proxy's HTML page instead of our JSON (status 0: none). */
class Verbindingsfout extends Error {
  constructor(readonly status: number) {
    super(`verbindingsfout ${status}`);
  }
}

/**
 * Signed out and in again in another tab, this tab holds the old session's CSRF token: a change refused
 * with 403 is sent once more with the new session's token, if it is still the same user's.
 */
async function haal(adres: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await haalEens(adres, init);
  if (res.status !== 403 || init?.method !== 'POST' || !(await nieuwCsrf())) return res;
  const headers = new Headers(init.headers);
  headers.set('x-csrf-token', csrf);
  return haalEens(adres, { ...init, headers });
}

async function nieuwCsrf(): Promise<boolean> {
  const oud = csrf;
  try {
    const g = await api.sessie.huidig.query();
    if (g.email !== email || g.csrf === oud) return false;
    csrf = g.csrf;
    return true;
  } catch {
    return false;
  }
}

async function haalEens(adres: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(adres, init);
  } catch (err) {
    if (init?.signal?.aborted) throw err;
    throw new Verbindingsfout(0);
  }
  if (!/json/i.test(res.headers.get('content-type') ?? '')) throw new Verbindingsfout(res.status);
  return res;
}

export const api = createTRPCClient<AppWebRouter>({
  links: [httpLink({ url: '/trpc', fetch: haal, headers: () => (csrf ? { 'x-csrf-token': csrf } : {}) })],
});

/** Called when any answer says the session is gone, with the message the login page shows. */
let bijAfmelding: (melding: string) => void = () => {};
export function bijVerlopenSessie(fn: (melding: string) => void) {
  bijAfmelding = fn;
}

export const GEEN_VERBINDING = 'Geen verbinding met de server; controleer je verbinding en probeer het opnieuw.';

function statusTekst(status: number): string {
  if (status === 0) return GEEN_VERBINDING;
  if (status === 502 || status === 503 || status === 504) return `De server is even niet bereikbaar (HTTP ${status}); probeer het over een paar minuten opnieuw.`;
  return `De server gaf een onverwacht antwoord (HTTP ${status}); probeer het opnieuw.`;
}

/**
 * The Dutch message of a failed call: the server's `fout`, or one for a failed connection or a foreign
 * answer; never the browser's English. `actie`: the call changed something, so a 401 says it did not happen.
 */
export function foutTekst(err: unknown, actie = false): string {
  if (err instanceof TRPCClientError) {
    if (err.cause instanceof Verbindingsfout) return statusTekst(err.cause.status);
    const data = err.data as { fout?: string; httpStatus?: number } | undefined;
    const tekst = data?.fout ?? statusTekst(data?.httpStatus ?? 0);
    if (data?.httpStatus === 401) bijAfmelding(actie ? `${tekst} Wat je net deed, is daardoor niet uitgevoerd; doe het na het aanmelden opnieuw.` : tekst);
    return tekst;
  }
  return 'Er ging iets mis; controleer je verbinding en probeer het opnieuw.';
}

export function is401(err: unknown): boolean {
  return err instanceof TRPCClientError && (err.data as { httpStatus?: number } | undefined)?.httpStatus === 401;
}
