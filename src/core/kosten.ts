/**
 * What an answer cost and the balance after it, on every answer to a valid key: the core puts it on
 * the call's `uitslag` (core/context.ts) as numbers, each gateway renders it its own way — REST as the
 * headers `Insight-Gefactureerd-Cent` and `Insight-Saldo-Credits`, MCP in a tool result's `_meta`.
 * The charging path reports where it knows both (after the debit, on a 402, on a replay); for every
 * other answer of a key (400, 403, 409, 429, whoami, verbruik) `metKosten` reads the balance once
 * after the procedure ran. Answers before a key is known (401, unknown route, 413, 415) cost 0.
 */
import type { Context, Kosten } from './context.ts';
import { EENHEID_CENT, getBalance } from '../domain/billing/tegoed.ts';

export const KOSTEN_HEADER = 'Insight-Gefactureerd-Cent';
export const SALDO_HEADER = 'Insight-Saldo-Credits';

/** Report the cost (in credits) and the balance after it. */
export function meldKosten(ctx: Pick<Context, 'uitslag'>, credits: number, saldo: number): void {
  ctx.uitslag.kosten = { gefactureerd_cent: credits * EENHEID_CENT, saldo_credits: saldo };
}

/** Run the rest of a keyed procedure; if it reported no cost (nothing was charged), report 0 and the current balance. */
export async function metKosten<R>(ctx: Context, accountId: string, verder: () => Promise<R>): Promise<R> {
  try {
    return await verder();
  } finally {
    if (!ctx.uitslag.kosten) {
      const saldo = await getBalance(ctx.services.db, accountId).catch(() => null);
      ctx.uitslag.kosten = saldo === null ? { gefactureerd_cent: 0 } : { gefactureerd_cent: 0, saldo_credits: saldo };
    }
  }
}

/** The REST rendering of a call's cost. */
export function kostenHeaders(k: Kosten | undefined): Record<string, string> {
  if (!k) return {};
  return k.saldo_credits === undefined
    ? { [KOSTEN_HEADER]: String(k.gefactureerd_cent) }
    : { [KOSTEN_HEADER]: String(k.gefactureerd_cent), [SALDO_HEADER]: String(k.saldo_credits) };
}
