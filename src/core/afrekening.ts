/**
 * The charged procedure, once for every gateway: this middleware sits around the resolver and its output
 * check (an answer failing its schema is an uncharged 500). Order: idempotency, balance (402 before any
 * work), lookup, then one settlement in one commit (domain/billing/afrekenen.ts); the cost goes on `uitslag`.
 * A test key takes the same path at price 0 and is refused on a real address.
 */
import type { AuthContext } from './context.ts';
import { isDatabaseOnbereikbaar } from './database-storing.ts';
import { InsightFout, type FoutSoort } from './errors.ts';
import { meldKosten } from './kosten.ts';
import { creditsTekst, PRIJZEN, prijsTekst, type Voorziening } from './prijzen.ts';
import { SCHEMA_INZICHT, SCHEMA_VERSIE } from './schema.ts';
import { limietMetClaim, middleware, type Meta } from './trpc.ts';
import { EENHEID_CENT, leesSaldo } from '../domain/billing/tegoed.ts';
import { meldMaandlimietWeigering, meldMislukt, rekenAf, type Vastlegging } from '../domain/billing/afrekenen.ts';
import { canoniekeJson, claim, geefVrij, IDEMPOTENCY_KEY_RE, sha256, verlooptOp, type Claim } from '../domain/idempotentie/idempotentie.ts';
import { maandRuimte } from '../domain/keys/sleutels.ts';
import { BUITEN_DEMO_FOUT, isDemoPostcode } from '../domain/keys/testsleutel.ts';

export interface Bron {
  naam: string;
  datum: string | null;
}

/** `gefactureerd: false` for an answer that holds nothing. 404 is never charged; 422 by default is. */
export type Uitkomst<D> =
  | { status: 200; data: D; bron: Bron | null; gefactureerd: boolean; extraMeta?: Record<string, unknown> }
  | { status: 404; fout: string }
  | { status: 422; fout: string; /** default true: too few comparables is charged */ gefactureerd?: boolean };

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

export class Uitval extends InsightFout {
  readonly credits: number;
  constructor(soort: FoutSoort, fout: string, credits: number) {
    super(soort, fout);
    this.credits = credits;
  }
}

/** The envelope of a 200 (its meta says the price), an Uitval for the rest. */
export function antwoordVan<D>(voorziening: Voorziening, u: Uitkomst<D>): LookupEnvelope<D> {
  const prijs = PRIJZEN[voorziening];
  if (u.status === 404) throw new Uitval('niet_gevonden', u.fout, 0);
  if (u.status === 422) throw new Uitval('onverwerkbaar', u.fout, u.gefactureerd === false ? 0 : prijs);
  const meta: LookupEnvelope<D>['meta'] = { schema: SCHEMA_INZICHT, schema_versie: SCHEMA_VERSIE, voorziening, cached: false, gefactureerd_cent: u.gefactureerd ? prijs * EENHEID_CENT : 0 };
  return { data: u.data, meta: { ...meta, bron: u.bron, ...u.extraMeta } };
}

/** REST: by the Idempotency-Key header, claimed before the work; MCP: by a fingerprint of tool and arguments, stored and found at the settlement (a repeat costs a lookup, not money). */
function idempotentie(ctx: AuthContext, voorziening: Voorziening, meta: Meta | undefined, input: unknown): { scope: string; sleutel: string } | undefined {
  if (ctx.kanaal === 'mcp') return { scope: 'mcp', sleutel: sha256(`${meta?.mcp?.tool ?? voorziening}\n${canoniekeJson(input)}`) };
  if (ctx.idempotencyKey === undefined) return undefined;
  return { scope: voorziening, sleutel: geldigeIdempotencyKey(ctx.idempotencyKey) };
}

export function geldigeIdempotencyKey(sleutel: string): string {
  if (!IDEMPOTENCY_KEY_RE.test(sleutel)) throw new InsightFout('ongeldige_invoer', 'Ongeldige Idempotency-Key: gebruik 1 tot 255 zichtbare ASCII-tekens.');
  return sleutel;
}

const statusSoort: Record<number, FoutSoort> = { 404: 'niet_gevonden', 422: 'onverwerkbaar' };

/**
 * REQUEST_TIMEOUT_MS plus the settlement's statement timeout: a request short of its settlement past the
 * first part gives up uncharged, so a retry that takes the claim over never meets a late settlement.
 */
export function claimTermijnMs(ctx: AuthContext): number {
  return ctx.services.config.REQUEST_TIMEOUT_MS + ctx.services.config.DB_QUERY_TIMEOUT_MS;
}

/** `.use()` it after `.input()` and before `.output()`. */
export const afrekenen = middleware(async ({ ctx: context, input, meta, next }) => {
  const ctx = context as AuthContext;
  const voorziening = meta?.voorziening;
  if (!voorziening) throw new Error('afrekenen: de procedure noemt geen voorziening in haar meta');
  const { db } = ctx.services;
  const now = ctx.services.now();
  const p = ctx.principal;
  const test = p.modus === 'test';
  const prijs = test ? 0 : PRIJZEN[voorziening];

  let claimId: string | undefined;
  let claimTot: Date | undefined;
  let saldoBijClaim: number | undefined;
  let vastleggen: Vastlegging | undefined;
  const idem = idempotentie(ctx, voorziening, meta, input);
  const mcp = ctx.kanaal === 'mcp';
  const claimOpts = idem && { keyId: p.keyId, ...idem, verzoekHash: sha256(canoniekeJson(input)), now, accountId: p.accountId, termijnMs: claimTermijnMs(ctx), kijk: mcp };
  if (claimOpts && mcp) {
    vastleggen = { scope: claimOpts.scope, sleutel: claimOpts.sleutel, hash: claimOpts.verzoekHash, verloopt: verlooptOp(now) };
  } else if (claimOpts) {
    const c = ctx.limiet && !ctx.limiet.gedaan ? await limietMetClaim(ctx, claimOpts) : await claim(db, claimOpts);
    if (c.soort !== 'nieuw') return herhaal(ctx, c);
    claimId = c.id;
    claimTot = c.tot;
    saldoBijClaim = c.saldo;
  }
  /** The stored answer of an identical MCP call, looked up only where a call cannot settle itself. */
  const opgeslagen = async () => {
    const c = mcp && claimOpts ? await claim(db, claimOpts) : undefined;
    return c?.soort === 'herhaling' ? c : undefined;
  };
  const bewaar = (antwoord: unknown) => (claimId ? { id: claimId, antwoord } : vastleggen ? { vastleggen, antwoord } : undefined);

  let klaar = false;
  let fout: unknown;
  try {
    const adres = (input as { adres: { postcode: string; huisnummer: number; toevoeging?: string | null } }).adres;
    const basis = {
      accountId: p.accountId,
      keyId: p.keyId,
      voorvoegsel: p.voorvoegsel,
      kanaal: ctx.kanaal,
      voorziening,
      adres: `${adres.postcode} ${adres.huisnummer}${adres.toevoeging ? ` ${adres.toevoeging}` : ''}`,
      now,
      idempotencyKey: ctx.kanaal === 'rest' ? ctx.idempotencyKey : undefined,
      test,
    };
    if (test && !isDemoPostcode(adres.postcode)) {
      const antwoord = { fout: BUITEN_DEMO_FOUT };
      const a = await rekenAf(db, { ...basis, status: 404, credits: 0, idempotentie: bewaar(antwoord) });
      meldKosten(ctx, 0, a.saldo ?? saldoBijClaim ?? ctx.saldo ?? (await leesSaldo(db, p.accountId)), a.soort === 'ok' ? a.verzoekId : undefined);
      klaar = true;
      throw new Uitval('niet_gevonden', BUITEN_DEMO_FOUT, 0);
    }
    const saldo = saldoBijClaim ?? ctx.saldo ?? (await leesSaldo(db, p.accountId));
    const ruimte = p.maandlimiet === null ? null : await maandRuimte(db, p.keyId, now);
    if (saldo < prijs || (ruimte !== null && ruimte < prijs)) {
      // A repeat of a stored MCP answer is free, so it is replayed even now.
      const eerder = await opgeslagen();
      if (eerder) return herhaal(ctx, eerder);
      if (saldo < prijs) {
        meldKosten(ctx, 0, saldo);
        await meldMislukt(db, basis, 402);
        throw onvoldoende(prijs, saldo);
      }
      meldKosten(ctx, 0, saldo, await meldMaandlimietWeigering(db, basis));
      throw maandlimietBereikt(prijs);
    }

    const r = await next();
    let uitkomst: { status: number; credits: number; antwoord: unknown };
    if (r.ok) {
      const antwoord = r.data as LookupEnvelope<unknown>;
      if (test) antwoord.meta = { ...antwoord.meta, gefactureerd_cent: 0, test: true };
      uitkomst = { status: 200, credits: antwoord.meta.gefactureerd_cent / EENHEID_CENT, antwoord };
    } else if (r.error instanceof Uitval) {
      uitkomst = { status: r.error.status, credits: test ? 0 : r.error.credits, antwoord: { fout: r.error.message } };
    } else {
      // Refused input, an outage, a crash or an answer that failed its schema: nothing is charged. A repeat
      // of a stored MCP answer still gets it (it did not look before its work).
      const eerder = await opgeslagen().catch(() => undefined);
      if (eerder) return herhaal(ctx, eerder);
      // An outage is answered 503 (trpc.ts), not 500: no inzicht.mislukt, and no wait on a database that is down.
      if (isDatabaseOnbereikbaar(r.error)) fout = r.error;
      else if (!(r.error instanceof InsightFout)) await meldMislukt(db, basis, 500).catch(() => {});
      return r;
    }

    if (claimTot && ctx.services.now().getTime() > claimTot.getTime() - ctx.services.config.DB_QUERY_TIMEOUT_MS) {
      // Past its own time the claim may already be a retry's; settling now could charge the same key twice.
      throw new InsightFout('niet_beschikbaar', 'Deze opvraging duurde te lang en is afgebroken; er is niets in rekening gebracht. Probeer het opnieuw.', { headers: { 'Retry-After': '1' } });
    }
    let a = await rekenAf(db, { ...basis, ...uitkomst, idempotentie: bewaar(uitkomst.antwoord) });
    for (let poging = 0; a.soort === 'herhaling'; poging++) {
      // An identical MCP call settled first, or a REST retry took the claim over: its answer (or 409), uncharged.
      const c = await claim(db, { ...claimOpts!, kijk: true });
      if (c.soort !== 'vrij') {
        klaar = true;
        return herhaal(ctx, c);
      }
      // No answer after all (that call was refused, or its record expired): an MCP call settles itself.
      if (poging === 2 || !mcp) throw new InsightFout('niet_beschikbaar', 'Deze opvraging kon niet worden afgerekend; er is niets in rekening gebracht. Probeer het opnieuw.', { headers: { 'Retry-After': '1' } });
      a = await rekenAf(db, { ...basis, ...uitkomst, idempotentie: bewaar(uitkomst.antwoord) });
    }
    if (a.soort !== 'ok') {
      if (a.soort === 'gesloten') throw new InsightFout('ongeldige_sleutel', 'Dit account is gesloten; er is niets in rekening gebracht.');
      if (a.soort === 'onvoldoende') {
        meldKosten(ctx, 0, a.saldo);
        await meldMislukt(db, basis, 402);
        throw onvoldoende(prijs, a.saldo);
      }
      meldKosten(ctx, 0, a.saldo, await meldMaandlimietWeigering(db, basis));
      throw maandlimietBereikt(prijs);
    }
    meldKosten(ctx, uitkomst.credits, a.saldo ?? saldo, a.verzoekId);
    klaar = true;
    return r;
  } catch (e) {
    fout = e;
    throw e;
  } finally {
    // The claim lapses by itself: after an outage the answer does not wait for its release.
    if (claimId && !klaar) {
      const vrij = geefVrij(db, claimId);
      if (isDatabaseOnbereikbaar(fout)) vrij.catch(() => {});
      else await vrij;
    }
  }
});

/** The 409 of a claim that is no replay: the key used for another request, or the first still running. */
export function alsHerhaling(ctx: AuthContext, c: Claim): Extract<Claim, { soort: 'herhaling' }> {
  if (c.soort === 'ander_verzoek') {
    throw new InsightFout('conflict', `${ctx.kanaal === 'mcp' ? 'Deze aanroep' : 'Deze Idempotency-Key'} is in de afgelopen 24 uur al gebruikt voor een ander verzoek.`);
  }
  if (c.soort !== 'herhaling') {
    throw new InsightFout('conflict', `${ctx.kanaal === 'mcp' ? 'Een identieke aanroep' : 'Een verzoek met deze Idempotency-Key'} wordt nog verwerkt; probeer het zo opnieuw.`, { headers: { 'Retry-After': '1' } });
  }
  ctx.setHeader('Idempotent-Replayed', 'true');
  return c;
}

/** A stored answer replayed uncharged, or why there is none to give (409). */
async function herhaal(ctx: AuthContext, claimd: Claim) {
  const c = alsHerhaling(ctx, claimd);
  meldKosten(ctx, 0, await leesSaldo(ctx.services.db, ctx.principal.accountId));
  if (c.status !== 200) {
    throw new InsightFout(statusSoort[c.status] ?? 'onverwerkbaar', (c.antwoord as { fout: string }).fout, { headers: { 'Idempotent-Replayed': 'true' } });
  }
  const oud = c.antwoord as LookupEnvelope<unknown>;
  return { ok: true as const, data: { ...oud, meta: { ...oud.meta, cached: true, gefactureerd_cent: 0 } }, marker: undefined as never };
}

function maandlimietBereikt(prijs: number): InsightFout {
  return new InsightFout(
    'onvoldoende_tegoed',
    `De maandlimiet van deze sleutel is bereikt: deze opvraging kost ${creditsTekst(prijs)} (${prijsTekst(prijs)}) en past niet meer binnen de limiet van deze kalendermaand. Verhoog de limiet van de sleutel of wacht tot de volgende maand; het tegoed van het account is niet aangesproken.`,
  );
}

function onvoldoende(prijs: number, saldo: number): InsightFout {
  return new InsightFout(
    'onvoldoende_tegoed',
    `Onvoldoende tegoed: deze opvraging kost ${creditsTekst(prijs)} (${prijsTekst(prijs)}), het saldo is ${creditsTekst(saldo)} (${prijsTekst(saldo)}). Waardeer het account op.`,
  );
}
