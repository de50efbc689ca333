/**
 * The shared path of every insight lookup, whatever the gateway: idempotency (replay / 409), the
 * balance check (402 before any work), the lookup itself, and settling it (debit + ledger + usage +
 * webhook event + stored answer in one transaction). Procedures only say what to look up.
 */
import type { AuthContext } from './context.ts';
import { InsightFout, type FoutSoort } from './errors.ts';
import { PRIJZEN, prijsTekst, type Voorziening } from './prijzen.ts';
import { SCHEMA_INZICHT, SCHEMA_VERSIE } from './schema.ts';
import { meldKosten } from './kosten.ts';
import { EENHEID_CENT, getBalance } from '../domain/billing/tegoed.ts';
import { meldMislukt, meldOnvoldoendeTegoed, rekenAf } from '../domain/billing/afrekenen.ts';
import { canoniekeJson, claim, geefVrij, IDEMPOTENCY_KEY_RE, sha256 } from '../domain/idempotentie/idempotentie.ts';

export interface Bron {
  naam: string;
  datum: string | null;
}

/**
 * What a lookup found: the one result type of every lookup. `gefactureerd: false` for an answer that
 * holds nothing (empty WOZ, no label). 404 (unknown address) is never charged; 422 by default is.
 */
export type Uitkomst<D> =
  | { status: 200; data: D; bron: Bron | null; gefactureerd: boolean; extraMeta?: Record<string, unknown> }
  | { status: 404; fout: string }
  | { status: 422; fout: string; extraMeta?: Record<string, unknown>; /** default true: too few comparables is charged */ gefactureerd?: boolean };

export interface LookupEnvelope<D> {
  data: D;
  meta: {
    schema: string;
    schema_versie: typeof SCHEMA_VERSIE;
    voorziening: Voorziening;
    cached: boolean;
    gefactureerd_cent: number;
    bron?: Bron | null;
    [k: string]: unknown;
  };
}

const statusSoort: Record<number, FoutSoort> = { 404: 'niet_gevonden', 422: 'onverwerkbaar' };


/** `adres` is the address as asked, for the usage record. */
export async function voerLookupUit<D>(
  ctx: AuthContext,
  voorziening: Voorziening,
  input: unknown,
  adres: string,
  zoek: () => Promise<Uitkomst<D>>,
): Promise<LookupEnvelope<D>> {
  const { db } = ctx.services;
  const now = ctx.services.now();
  const p = ctx.principal;
  const prijs = PRIJZEN[voorziening];

  // 5. Idempotency: REST by header per voorziening; MCP by a fingerprint of tool + arguments.
  let claimId: string | undefined;
  let saldoBijClaim: number | undefined;
  let sleutel: string | undefined;
  let scope = voorziening as string;
  if (ctx.kanaal === 'rest' && ctx.idempotencyKey !== undefined) {
    if (!IDEMPOTENCY_KEY_RE.test(ctx.idempotencyKey)) {
      throw new InsightFout('ongeldige_invoer', 'Ongeldige Idempotency-Key: gebruik 1 tot 255 zichtbare ASCII-tekens.');
    }
    sleutel = ctx.idempotencyKey;
  } else if (ctx.kanaal === 'mcp') {
    scope = 'mcp';
    sleutel = sha256(`${ctx.mcpTool ?? voorziening}\n${canoniekeJson(input)}`);
  }
  if (sleutel !== undefined) {
    const c = await claim(db, { keyId: p.keyId, scope, sleutel, verzoekHash: sha256(canoniekeJson(input)), now, accountId: p.accountId });
    if (c.soort === 'ander_verzoek') {
      throw new InsightFout('conflict', 'Deze Idempotency-Key is in de afgelopen 24 uur al gebruikt voor een ander verzoek.');
    }
    if (c.soort === 'bezig') {
      throw new InsightFout('conflict', 'Een verzoek met deze Idempotency-Key wordt nog verwerkt; probeer het zo opnieuw.', { headers: { 'Retry-After': '1' } });
    }
    if (c.soort === 'herhaling') {
      ctx.setHeader('Idempotent-Replayed', 'true');
      meldKosten(ctx, 0, await getBalance(db, p.accountId));
      if (c.status === 200) {
        const oud = c.antwoord as LookupEnvelope<D>;
        return { ...oud, meta: { ...oud.meta, cached: true, gefactureerd_cent: 0 } };
      }
      throw new InsightFout(statusSoort[c.status] ?? 'onverwerkbaar', (c.antwoord as { fout: string }).fout, { headers: { 'Idempotent-Replayed': 'true' } });
    }
    claimId = c.id;
    saldoBijClaim = c.saldo;
  }

  let klaar = false;
  try {
    const basis = { accountId: p.accountId, keyId: p.keyId, voorvoegsel: p.voorvoegsel, kanaal: ctx.kanaal, voorziening, adres, now, idempotencyKey: ctx.kanaal === 'rest' ? ctx.idempotencyKey : undefined };
    // 6. Balance before any work.
    const saldo = saldoBijClaim ?? ctx.saldo ?? (await getBalance(db, p.accountId));
    if (saldo < prijs) {
      meldKosten(ctx, 0, saldo);
      await meldOnvoldoendeTegoed(db, basis);
      throw onvoldoende(prijs, saldo);
    }
    // 7. The lookup itself.
    const u = await zoek().catch(async (e: unknown) => {
      if (!(e instanceof InsightFout)) await meldMislukt(db, basis, 500).catch(() => {});
      throw e;
    });
    const credits = (u.status === 422 && u.gefactureerd !== false) || (u.status === 200 && u.gefactureerd) ? prijs : 0;
    const meta = {
      schema: SCHEMA_INZICHT,
      schema_versie: SCHEMA_VERSIE,
      voorziening,
      cached: false,
      gefactureerd_cent: credits * EENHEID_CENT,
      ...(u.status === 200 ? { bron: u.bron, ...u.extraMeta } : {}),
    };
    const antwoord = u.status === 200 ? { data: u.data, meta } : { fout: u.fout };
    const r = await rekenAf(db, { ...basis, status: u.status, credits, idempotentie: claimId ? { id: claimId, antwoord } : undefined });
    if (r.soort === 'onvoldoende') {
      // Another call of the same account spent the credits between our check and our debit.
      meldKosten(ctx, 0, r.saldo);
      await meldOnvoldoendeTegoed(db, basis);
      throw onvoldoende(prijs, r.saldo);
    }
    meldKosten(ctx, credits, r.saldo ?? saldo);
    klaar = true;
    if (u.status !== 200) throw new InsightFout(statusSoort[u.status], u.fout);
    return antwoord as LookupEnvelope<D>;
  } finally {
    if (claimId && !klaar) await geefVrij(db, claimId);
  }
}

function onvoldoende(prijs: number, saldo: number): InsightFout {
  return new InsightFout(
    'onvoldoende_tegoed',
    `Onvoldoende tegoed: deze opvraging kost ${prijs} credits (${prijsTekst(prijs)}), het saldo is ${saldo} credits (${prijsTekst(saldo)}). Waardeer het account op.`,
  );
}
