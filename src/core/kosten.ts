/**
 * What an answer cost and the balance after it, on every answer to a valid key (REST response
 * headers; MCP tool results carry the same in `_meta`): `Insight-Gefactureerd-Cent` (0 when nothing
 * was charged) and `Insight-Saldo-Credits`. The charging path reports both where it knows them
 * (after the debit, on a 402, on a replay); for every other answer of a key (400, 403, 409, 429,
 * whoami, verbruik) this middleware reads the balance once after the procedure ran. Answers before
 * a key is known (401, 404/405 of an unknown route, 413, 415) carry only the cost, 0.
 */
import type { Context } from './context.ts';
import { EENHEID_CENT, getBalance } from '../domain/billing/tegoed.ts';

export const KOSTEN_HEADER = 'Insight-Gefactureerd-Cent';
export const SALDO_HEADER = 'Insight-Saldo-Credits';

/** Report the cost (in credits) and the balance after it. */
export function meldKosten(ctx: Pick<Context, 'setHeader'>, credits: number, saldo: number): void {
  ctx.setHeader(KOSTEN_HEADER, String(credits * EENHEID_CENT));
  ctx.setHeader(SALDO_HEADER, String(saldo));
}

/**
 * Run the rest of a keyed procedure with a setHeader that notices whether the cost was reported; if
 * not (nothing was charged), report 0 and the current balance, also when the procedure failed.
 */
export async function metKosten<R>(ctx: Context, accountId: string, verder: (setHeader: Context['setHeader']) => Promise<R>): Promise<R> {
  let gemeld = false;
  const setHeader: Context['setHeader'] = (k, v) => {
    if (k === SALDO_HEADER) gemeld = true;
    ctx.setHeader(k, v);
  };
  try {
    return await verder(setHeader);
  } finally {
    if (!gemeld) {
      const saldo = await getBalance(ctx.services.db, accountId).catch(() => null);
      if (saldo === null) ctx.setHeader(KOSTEN_HEADER, '0');
      else meldKosten(ctx, 0, saldo);
    }
  }
}

/** The same two values for an MCP result's `_meta`, from the headers a tool call set. */
export function kostenMeta(headers: Record<string, string>): Record<string, number> {
  const meta: Record<string, number> = {};
  if (headers[KOSTEN_HEADER] !== undefined) meta.gefactureerd_cent = Number(headers[KOSTEN_HEADER]);
  if (headers[SALDO_HEADER] !== undefined) meta.saldo_credits = Number(headers[SALDO_HEADER]);
  return meta;
}
