/**
 * Cost and balance after it, as numbers on the call's `uitslag`; each gateway renders them (REST headers,
 * MCP `_meta`). The charging path reports them; for any other keyed answer `metKosten` reads the balance
 * once. Answers before a key is known cost 0.
 */
import type { Context, Kosten } from './context.ts';
import { EENHEID_CENT, leesSaldo } from '../domain/billing/tegoed.ts';
import { naarFout } from './errors.ts';

export const KOSTEN_HEADER = 'Insight-Gefactureerd-Cent';
export const SALDO_HEADER = 'Insight-Saldo-Credits';
export const VERZOEK_HEADER = 'Insight-Verzoek-Id';

export function meldKosten(ctx: Pick<Context, 'uitslag'>, credits: number, saldo: number, verzoekId?: string): void {
  ctx.uitslag.kosten = { gefactureerd_cent: credits * EENHEID_CENT, saldo_credits: saldo, ...(verzoekId ? { verzoek_id: verzoekId } : {}) };
}

/** If the procedure reported no cost (nothing was charged), report 0 and the current balance; none for a key refused after the cache let it in. */
export async function metKosten<R>(ctx: Context, accountId: string, verder: () => Promise<R>): Promise<R> {
  let ongeldigeSleutel = false;
  try {
    const r = await verder();
    const uit = r as { ok?: unknown; error?: unknown } | undefined;
    ongeldigeSleutel = uit?.ok === false && naarFout(uit.error).status === 401;
    return r;
  } catch (err) {
    ongeldigeSleutel = naarFout(err).status === 401;
    throw err;
  } finally {
    if (ongeldigeSleutel) ctx.uitslag.kosten = { gefactureerd_cent: 0 };
    else if (!ctx.uitslag.kosten) {
      const saldo = await leesSaldo(ctx.services.db, accountId).catch(() => null);
      ctx.uitslag.kosten = saldo === null ? { gefactureerd_cent: 0 } : { gefactureerd_cent: 0, saldo_credits: saldo };
    }
  }
}

export function kostenHeaders(k: Kosten | undefined): Record<string, string> {
  if (!k) return {};
  return {
    [KOSTEN_HEADER]: String(k.gefactureerd_cent),
    ...(k.saldo_credits === undefined ? {} : { [SALDO_HEADER]: String(k.saldo_credits) }),
    ...(k.verzoek_id ? { [VERZOEK_HEADER]: k.verzoek_id } : {}),
  };
}
