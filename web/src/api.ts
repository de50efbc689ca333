/** The typed tRPC client of the internal /trpc router; the CSRF token rides along on every call. */
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppWebRouter } from '../../src/procedures/app/router.ts';

let csrf = '';
export function zetCsrf(token: string) {
  csrf = token;
}

export const api = createTRPCClient<AppWebRouter>({
  links: [httpLink({ url: '/trpc', headers: () => (csrf ? { 'x-csrf-token': csrf } : {}) })],
});

/** Called when any answer says the session is gone: the app shows the login page. */
let bijAfmelding: () => void = () => {};
export function bijVerlopenSessie(fn: () => void) {
  bijAfmelding = fn;
}

/** The Dutch message of a failed call (the server's `fout`), or a generic sentence. */
export function foutTekst(err: unknown): string {
  if (err instanceof TRPCClientError) {
    const data = err.data as { fout?: string; httpStatus?: number } | undefined;
    if (data?.httpStatus === 401) bijAfmelding();
    return data?.fout ?? err.message;
  }
  return 'Er ging iets mis; controleer je verbinding en probeer het opnieuw.';
}

export function is401(err: unknown): boolean {
  return err instanceof TRPCClientError && (err.data as { httpStatus?: number } | undefined)?.httpStatus === 401;
}
