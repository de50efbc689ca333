/**
 * Rate limits per key as a sliding window of 60 one-second slots in one row per (key, bucket), so the limit
 * holds across processes (prisma/sql/snelheid_controleer.sql). The request is recorded only when every
 * bucket allows it, so a refused request spends no quota; the cost is the same for any limit.
 * Decision: whole seconds, so a request may leave the window up to 1 s early, for a state of 60 counters.
 * The same statement reports whether the cached key is still valid.
 * A refusal is remembered until the oldest counted second leaves the window (counts only grow), so a
 * flooding key costs no database round trip.
 */
import { groepeer, perDatabase } from '../../db/bundel.ts';
import { sqlRijen, type Db } from '../../db/client.ts';
import type { ClaimRij } from '../idempotentie/idempotentie.ts';
import { vergeetSleutel } from '../keys/sleutels.ts';

export const VENSTER_MS = 60_000;

export interface Emmer {
  naam: string;
  limiet: number;
}

export interface EmmerStand {
  naam: string;
  limiet: number;
  resterend: number;
  resetSeconden: number;
}

export interface LimietUitslag {
  /** The key was revoked or expired since it was cached; nothing was counted (401). */
  sleutelGeldig: boolean;
  toegestaan: boolean;
  standen: EmmerStand[];
  retryAfter: number;
  /** Absent when answered from memory. */
  saldo?: number;
}

interface Weigering {
  tot: number;
  standen: EmmerStand[];
  op: number;
}

const weigeringen = new Map<string, Weigering>();
const MAX_WEIGERINGEN = 10_000;

function uitGeheugen(sleutel: string, nu: number): LimietUitslag | null {
  const w = weigeringen.get(sleutel);
  if (!w) return null;
  if (nu >= w.tot || nu < w.op) {
    weigeringen.delete(sleutel);
    return null;
  }
  const verstreken = Math.floor((nu - w.op) / 1000);
  const standen = w.standen.map((s) => ({ ...s, resetSeconden: s.resetSeconden === 0 ? 0 : Math.max(1, s.resetSeconden - verstreken) }));
  const retryAfter = Math.max(1, Math.ceil((w.tot - nu) / 1000));
  return { sleutelGeldig: true, toegestaan: false, standen, retryAfter };
}

interface Meting {
  geldig: boolean;
  toegestaan: boolean;
  /** Sorted like the batch key: the count before this request and the oldest counted second (ms). */
  emmers: { aantal: number; oudste: number | null }[];
  saldo: number;
}

type SnelheidRij = { r_geldig: boolean; r_toegelaten: number; r_aantal: number; r_oudste_ms: bigint | string | null; r_saldo: number };

/** The first `r_toegelaten` are admitted, in arrival order; each sees the count as it stood before it. */
function naarMetingen(rijen: SnelheidRij[], nus: number[]): Meting[] {
  const geldig = rijen[0]?.r_geldig === true;
  const toegelaten = geldig ? rijen[0].r_toegelaten : 0;
  const seconde = Math.floor(Math.max(...nus) / 1000) * 1000;
  return nus.map((_, j) => ({
    geldig,
    toegestaan: j < toegelaten,
    emmers: geldig
      ? rijen.map((r) => ({
          aantal: r.r_aantal + Math.min(j, toegelaten),
          oudste: r.r_oudste_ms !== null ? Number(r.r_oudste_ms) : Math.min(j, toegelaten) > 0 ? seconde : null,
        }))
      : [],
    saldo: rijen[0]?.r_saldo ?? 0,
  }));
}

interface Controle {
  groep: string;
  keyId: string;
  emmers: Emmer[];
  nu: number;
  /** An idempotency claim to make in the same statement if the limit admits this request (snelheid_claim_bundel). */
  claim?: Record<string, unknown>;
}

type Rij = SnelheidRij & { r_groep: number | null; r_fout: string | null; r_claim: number | null } & Partial<ClaimRij>;

/** Groups go sorted by key and buckets, so statements of several processes lock rows in one order. */
const bundelaar = perDatabase<Controle, Meting & { claim?: ClaimRij }>((db) => ({
  maxGrootte: 512,
  async verwerk(_, items) {
    const lijst = groepeer(items, (c) => c.groep).map((g) => ({ c: g.items[0], nus: g.items.map((c) => c.nu), plaatsen: g.plaatsen }));
    const groepen = JSON.stringify(
      lijst.map((g) => ({
        sleutel: g.c.keyId,
        emmers: g.c.emmers.map((e) => e.naam).join(','),
        limieten: g.c.emmers.map((e) => e.limiet).join(','),
        nu: Math.max(...g.nus),
        aantal: g.nus.length,
      })),
    );
    /** Per claim its item; a claim names its group and its place in the group's arrival order. */
    const claimVan: number[] = [];
    const claims: Record<string, unknown>[] = [];
    lijst.forEach((g, groep) =>
      g.plaatsen.forEach((j, plek) => {
        const claim = items[j].claim;
        if (!claim) return;
        claimVan.push(j);
        claims.push({ ...claim, groep, plek });
      }),
    );
    const rijen = claims.length
      ? await sqlRijen<Rij>(db, 'SELECT * FROM snelheid_claim_bundel($1::jsonb, $2::jsonb)', [groepen, JSON.stringify(claims)])
      : await sqlRijen<Rij>(db, 'SELECT * FROM snelheid_controleer_bundel($1::jsonb)', [groepen]);
    const perGroep = lijst.map((): Rij[] => []);
    const claimRijen = new Map<number, ClaimRij>();
    for (const r of rijen) {
      if (r.r_claim !== null && r.r_claim !== undefined) claimRijen.set(claimVan[Number(r.r_claim)], r as ClaimRij);
      else perGroep[Number(r.r_groep)].push(r);
    }
    const uit: ((Meting & { claim?: ClaimRij }) | Error)[] = items.map(() => new Error('snelheid_controleer_bundel gaf geen uitkomst voor deze controle'));
    lijst.forEach((g, i) => {
      const eigen = perGroep[i];
      const fout = eigen.find((r) => r.r_fout !== null)?.r_fout;
      const metingen = fout ? null : naarMetingen(eigen, g.nus);
      g.plaatsen.forEach((j, k) => {
        uit[j] = metingen ? { ...metingen[k], claim: claimRijen.get(j) } : new Error(`snelheid_controleer: ${fout}`);
      });
    });
    return uit;
  },
}));

/** `claim` (domain/idempotentie claimVerzoek) is made in the same statement if the limit admits the request. */
export async function controleerLimiet(db: Db, keyId: string, emmers: Emmer[], now: Date, claim?: Record<string, unknown>): Promise<LimietUitslag & { claim?: ClaimRij }> {
  const gesorteerd = [...emmers].sort((a, b) => a.naam.localeCompare(b.naam));
  const nu = now.getTime();
  const geheugenSleutel = `${keyId}|${gesorteerd.map((e) => e.naam).join(',')}`;
  const onthouden = uitGeheugen(geheugenSleutel, nu);
  if (onthouden) return onthouden;

  const groep = `${geheugenSleutel}|${gesorteerd.map((e) => e.limiet).join(',')}`;
  const meting = await bundelaar(db).voer('snelheid', { groep, emmers: gesorteerd, nu, keyId, claim });
  if (!meting.geldig) {
    vergeetSleutel(keyId);
    return { sleutelGeldig: false, toegestaan: false, standen: [], retryAfter: 0 };
  }
  const toegestaan = meting.toegestaan;
  const metingen = gesorteerd.map((emmer, i) => ({ emmer, ...meting.emmers[i] }));
  const standen = metingen.map((m) => {
    const aantalNa = toegestaan ? m.aantal + 1 : m.aantal;
    const oudste = m.oudste ?? (toegestaan ? nu : null);
    const reset = oudste !== null ? Math.max(1, Math.ceil((oudste + VENSTER_MS - nu) / 1000)) : 0;
    return { naam: m.emmer.naam, limiet: m.emmer.limiet, resterend: Math.max(0, m.emmer.limiet - aantalNa), resetSeconden: reset };
  });
  const vol = metingen.filter((m) => m.aantal >= m.emmer.limiet);
  const retryAfter = toegestaan ? 0 : Math.max(...vol.map((m) => standen.find((s) => s.naam === m.emmer.naam)!.resetSeconden), 1);
  if (!toegestaan) {
    // Until the oldest counted second of every full bucket has left the window, one of them is still full.
    const tot = Math.max(...vol.map((m) => (m.oudste ?? nu) + VENSTER_MS));
    if (weigeringen.size >= MAX_WEIGERINGEN) weigeringen.delete(weigeringen.keys().next().value!);
    weigeringen.set(geheugenSleutel, { tot, standen, op: nu });
  }
  return { sleutelGeldig: true, toegestaan, standen, retryAfter, saldo: meting.saldo, claim: meting.claim };
}

/** IETF httpapi ratelimit-headers draft syntax. */
export function limietHeaders(standen: EmmerStand[]): Record<string, string> {
  return {
    'RateLimit-Policy': standen.map((s) => `"${s.naam}";q=${s.limiet};w=${VENSTER_MS / 1000}`).join(', '),
    RateLimit: standen.map((s) => `"${s.naam}";r=${s.resterend};t=${s.resetSeconden}`).join(', '),
  };
}
