/** Operator CLI and web app only; never reachable through REST or MCP (decisions section 4). */
import { sqlRijen, TX_OPTS, UUID_RE, type Db } from '../../db/client.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { genereerSleutel, sleutelHash, isGeldigeSleutelvorm, modusVan, TEST_PREFIX, voorvoegsel, type Modus } from './format.ts';
import { datumAmsterdam, eindeDagAmsterdam } from '../begrippen.ts';

export type Familie = 'inzicht' | 'beheer';
export const RECHTEN_PER_FAMILIE: Record<Familie, string[]> = {
  inzicht: ['inzicht:lezen'],
  beheer: ['projecten:lezen', 'projecten:schrijven'],
};
export const MAX_GELDIGE_INZICHT_SLEUTELS = 10;
export const MAX_GELDIGE_TEST_SLEUTELS = 5;
const DAG_MS = 86_400_000;
export const STANDAARD_LOOPTIJD_DAGEN = 365;
export const MAX_LOOPTIJD_DAGEN = 730;

export class SleutelFout extends Error {
  readonly soort: 'te_veel_sleutels' | 'ongeldige_vervaldatum' | 'onbekend' | 'ongeldig';
  constructor(soort: SleutelFout['soort'], message: string) {
    super(message);
    this.soort = soort;
  }
}

export interface Principal {
  keyId: string;
  accountId: string;
  naam: string;
  familie: string;
  rechten: string[];
  voorvoegsel: string;
  verlooptOp: Date;
  /** As read with the key; the charge reads it again. */
  maandlimiet: number | null;
  modus: Modus;
}

export interface NieuweSleutel {
  key: string;
  id: string;
  voorvoegsel: string;
  verlooptOp: Date;
}

function geldigFilter(now: Date) {
  return { ingetrokkenOp: null, verlooptOp: { gt: now } };
}

export async function maakSleutel(
  db: Db,
  opts: { accountId: string; naam: string; familie?: Familie; modus?: Modus; verlooptOp?: Date; now?: Date },
): Promise<NieuweSleutel> {
  const now = opts.now ?? new Date();
  const familie = opts.familie ?? 'inzicht';
  const modus = opts.modus ?? 'live';
  if (modus === 'test' && familie !== 'inzicht') throw new SleutelFout('ongeldig', 'Alleen een inzichtsleutel kan een testsleutel zijn.');
  const verlooptOp = opts.verlooptOp ?? new Date(now.getTime() + STANDAARD_LOOPTIJD_DAGEN * DAG_MS);
  if (verlooptOp.getTime() <= now.getTime()) {
    throw new SleutelFout('ongeldige_vervaldatum', 'De vervaldatum moet in de toekomst liggen.');
  }
  if (verlooptOp.getTime() > eindeDagAmsterdam(datumAmsterdam(new Date(now.getTime() + MAX_LOOPTIJD_DAGEN * DAG_MS))).getTime()) {
    throw new SleutelFout('ongeldige_vervaldatum', 'Een sleutel is hoogstens 2 jaar geldig.');
  }
  if (!UUID_RE.test(opts.accountId)) throw new SleutelFout('onbekend', `Account ${opts.accountId} bestaat niet.`);
  const key = genereerSleutel(modus);
  return db.$transaction(async (tx) => {
    // Serialised per account so two concurrent creates cannot both pass the limit.
    const account = await tx.$queryRaw<{ gesloten_op: Date | null }[]>`SELECT gesloten_op FROM account WHERE id = ${opts.accountId}::uuid FOR UPDATE`;
    if (account.length === 0) throw new SleutelFout('onbekend', `Account ${opts.accountId} bestaat niet.`);
    if (account[0].gesloten_op) throw new SleutelFout('ongeldig', `Account ${opts.accountId} is gesloten: er kunnen geen sleutels meer bij.`);
    if (familie === 'inzicht') {
      const test = { voorvoegsel: { startsWith: TEST_PREFIX } };
      const geldig = await tx.apiKey.count({ where: { accountId: opts.accountId, familie, ...geldigFilter(now), ...(modus === 'test' ? test : { NOT: test }) } });
      const max = modus === 'test' ? MAX_GELDIGE_TEST_SLEUTELS : MAX_GELDIGE_INZICHT_SLEUTELS;
      if (geldig >= max) {
        throw new SleutelFout('te_veel_sleutels', modus === 'test' ? `Een account heeft hoogstens ${max} geldige testsleutels.` : `Een account heeft hoogstens ${max} geldige inzichtsleutels.`);
      }
    }
    const row = await tx.apiKey.create({
      data: {
        accountId: opts.accountId,
        naam: opts.naam,
        familie,
        rechten: RECHTEN_PER_FAMILIE[familie],
        hash: sleutelHash(key),
        voorvoegsel: voorvoegsel(key),
        verlooptOp,
      },
      select: { id: true },
    });
    return { key, id: row.id, voorvoegsel: voorvoegsel(key), verlooptOp };
  }, TX_OPTS);
}

/** The old key is revoked at once; the new one keeps name, family, rights and expiry. */
export async function roteerSleutel(db: Db, opts: { accountId: string; keyId: string; now?: Date }): Promise<NieuweSleutel> {
  const now = opts.now ?? new Date();
  if (!UUID_RE.test(opts.keyId)) throw new SleutelFout('onbekend', 'Deze sleutel bestaat niet of is niet meer geldig.');
  const uit = await db.$transaction(async (tx) => {
    // The account's row first, as every charge takes it before the key's (the other order deadlocks): of
    // concurrent rotations one goes on and the rest find the key revoked, and no charge is halfway while the
    // month's count is copied. Charges still in flight later count against the new key (limietsleutel).
    await tx.$queryRaw`SELECT a.id FROM account a JOIN api_sleutel s ON s.account_id = a.id WHERE s.id = ${opts.keyId}::uuid FOR UPDATE OF a`;
    await tx.$queryRaw`SELECT id FROM api_sleutel WHERE id = ${opts.keyId}::uuid FOR UPDATE`;
    const oud = await tx.apiKey.findFirst({ where: { id: opts.keyId, accountId: opts.accountId, ...geldigFilter(now) } });
    if (!oud) throw new SleutelFout('onbekend', 'Deze sleutel bestaat niet of is niet meer geldig.');
    const key = genereerSleutel(modusVan(oud.voorvoegsel));
    const nieuw = await tx.apiKey.create({
      data: {
        accountId: oud.accountId,
        naam: oud.naam,
        familie: oud.familie,
        rechten: oud.rechten,
        hash: sleutelHash(key),
        voorvoegsel: voorvoegsel(key),
        verlooptOp: oud.verlooptOp,
        maandlimietCredits: oud.maandlimietCredits,
        maand: oud.maand,
        maandVerbruikt: oud.maandVerbruikt,
        vorigeMaand: oud.vorigeMaand,
        vorigeMaandVerbruikt: oud.vorigeMaandVerbruikt,
        limietGemeldMaand: oud.limietGemeldMaand,
        verloopMeldingOp: oud.verloopMeldingOp,
        verloopMelding1dOp: oud.verloopMelding1dOp,
      },
      select: { id: true },
    });
    await tx.apiKey.update({ where: { id: oud.id }, data: { ingetrokkenOp: now, vervangenDoor: nieuw.id } });
    // The new key continues the old one: its idempotency records (a retry replays) and rate-limit window.
    await tx.$executeRaw`UPDATE idempotentie SET key_id = ${nieuw.id}::uuid WHERE key_id = ${oud.id}::uuid`;
    await tx.$executeRaw`UPDATE snelheid_stand SET key_id = ${nieuw.id}::uuid WHERE key_id = ${oud.id}::uuid`;
    return { key, id: nieuw.id, voorvoegsel: voorvoegsel(key), verlooptOp: oud.verlooptOp };
  }, TX_OPTS);
  vergeetSleutel(opts.keyId);
  return uit;
}

export async function trekSleutelIn(db: Db, opts: { accountId: string; keyId: string; now?: Date }): Promise<void> {
  const res = await db.apiKey.updateMany({
    where: { id: opts.keyId, accountId: opts.accountId, ingetrokkenOp: null },
    data: { ingetrokkenOp: opts.now ?? new Date() },
  });
  if (res.count === 0) throw new SleutelFout('onbekend', 'Deze sleutel bestaat niet of is al ingetrokken.');
  vergeetSleutel(opts.keyId);
}

export async function trekAlleSleutelsIn(tx: Prisma.TransactionClient, accountId: string, now: Date): Promise<number> {
  const ids = (await tx.apiKey.findMany({ where: { accountId, ingetrokkenOp: null }, select: { id: true } })).map((k) => k.id);
  await tx.apiKey.updateMany({ where: { id: { in: ids } }, data: { ingetrokkenOp: now } });
  for (const id of ids) vergeetSleutel(id);
  return ids.length;
}

/** Fits the INTEGER column with room for a month's charges. */
export const MAX_MAANDLIMIET = 1_000_000_000;

/** A test key costs nothing and takes none. */
export async function zetMaandlimiet(db: Db, opts: { accountId: string; keyId: string; credits: number | null }): Promise<void> {
  if (opts.credits !== null && (!Number.isSafeInteger(opts.credits) || opts.credits < 0 || opts.credits > MAX_MAANDLIMIET)) throw new SleutelFout('ongeldig', `De maandlimiet is een geheel aantal credits van 0 tot en met ${MAX_MAANDLIMIET}.`);
  if (opts.credits !== null && (await db.apiKey.count({ where: { id: opts.keyId, accountId: opts.accountId, voorvoegsel: { startsWith: TEST_PREFIX } } })) > 0) {
    throw new SleutelFout('ongeldig', 'Een testsleutel kost niets en heeft dus geen maandlimiet.');
  }
  const res = await db.apiKey.updateMany({ where: { id: opts.keyId, accountId: opts.accountId, familie: 'inzicht', ...geldigFilter(new Date()) }, data: { maandlimietCredits: opts.credits } });
  if (res.count === 0) {
    const oud = await db.apiKey.findFirst({ where: { id: opts.keyId, accountId: opts.accountId, familie: 'inzicht' }, select: { vervangenDoor: true, ingetrokkenOp: true } });
    const opvolger = oud?.vervangenDoor ? await db.apiKey.findUnique({ where: { id: oud.vervangenDoor }, select: { voorvoegsel: true } }) : null;
    if (opvolger) throw new SleutelFout('onbekend', `Deze sleutel is vervangen door ${opvolger.voorvoegsel}…; zet de maandlimiet op die sleutel.`);
    throw new SleutelFout('onbekend', oud ? 'Deze sleutel is ingetrokken of verlopen; zet de maandlimiet op een geldige sleutel.' : 'Deze inzichtsleutel bestaat niet bij dit account.');
  }
  vergeetSleutel(opts.keyId);
}

export interface Maandstand {
  limiet: number | null;
  verbruikt: number;
  maand: string;
}

export async function maandstanden(db: Db, keyIds: string[], now: Date): Promise<Map<string, Maandstand>> {
  if (keyIds.length === 0) return new Map();
  const rijen = await sqlRijen<{ id: string; limiet: number | null; verbruikt: number; maand: string }>(
    db,
    `SELECT id::text, maandlimiet_credits AS limiet, v.maand,
            maandverbruik(s, v.maand) AS verbruikt
     FROM api_sleutel s, (SELECT to_char($2::timestamptz AT TIME ZONE 'Europe/Amsterdam', 'YYYY-MM') AS maand) v
     WHERE s.id = ANY ($1::uuid[])`,
    [keyIds, now.toISOString()],
  );
  return new Map(rijen.map((r) => [r.id, { limiet: r.limiet, verbruikt: r.verbruikt, maand: r.maand }]));
}

export async function maandRuimte(db: Db, keyId: string, now: Date): Promise<number | null> {
  const s = (await maandstanden(db, [keyId], now)).get(keyId);
  return s?.limiet == null ? null : s.limiet - s.verbruikt;
}

export async function lijstSleutels(db: Db, accountId: string) {
  return db.apiKey.findMany({
    where: { accountId },
    orderBy: { aangemaaktOp: 'desc' },
    select: { id: true, naam: true, familie: true, rechten: true, voorvoegsel: true, verlooptOp: true, ingetrokkenOp: true, aangemaaktOp: true, laatstGebruiktOp: true, maandlimietCredits: true },
  });
}

/**
 * Keys cached per process for a few seconds. A revocation by any process is still seen at once: every
 * rate-limited call re-checks the key in its rate-limit statement, which drops it here. Calls that are not
 * rate limited may see a revoked key for at most SLEUTEL_CACHE_MS.
 */
const SLEUTEL_CACHE_MS = 10_000;
const MAX_GECACHTE_SLEUTELS = 10_000;
const sleutelCache = new Map<string, { principal: Principal; tot: number }>();

export function vergeetSleutel(keyId: string): void {
  for (const [hash, v] of sleutelCache) if (v.principal.keyId === keyId) sleutelCache.delete(hash);
}

/** Cheap format and checksum checks come before the database lookup. */
export async function authenticate(db: Db, authorization: string | undefined, now = new Date()): Promise<Principal | null> {
  if (!authorization) return null;
  const m = /^Bearer ([^\s]+)$/i.exec(authorization.trim());
  if (!m || !isGeldigeSleutelvorm(m[1])) return null;
  const hash = sleutelHash(m[1]);
  const gecacht = sleutelCache.get(hash);
  // Wall time: tests move the request clock, not this one.
  const klok = Date.now();
  if (gecacht && gecacht.tot > klok) {
    if (gecacht.principal.verlooptOp.getTime() <= now.getTime()) return null;
    await markeerGebruik(db, gecacht.principal.keyId, now);
    return gecacht.principal;
  }
  sleutelCache.delete(hash);
  const row = await db.apiKey.findUnique({
    where: { hash },
    select: { id: true, accountId: true, naam: true, familie: true, rechten: true, voorvoegsel: true, verlooptOp: true, ingetrokkenOp: true, maandlimietCredits: true },
  });
  if (!row || row.ingetrokkenOp || row.verlooptOp.getTime() <= now.getTime()) return null;
  const principal: Principal = {
    keyId: row.id,
    accountId: row.accountId,
    naam: row.naam,
    familie: row.familie,
    rechten: row.rechten,
    voorvoegsel: row.voorvoegsel,
    verlooptOp: row.verlooptOp,
    maandlimiet: row.maandlimietCredits,
    modus: modusVan(row.voorvoegsel),
  };
  if (sleutelCache.size >= MAX_GECACHTE_SLEUTELS) sleutelCache.delete(sleutelCache.keys().next().value!);
  sleutelCache.set(hash, { principal, tot: klok + SLEUTEL_CACHE_MS });
  await markeerGebruik(db, principal.keyId, now);
  return principal;
}

/** Written at most once a minute per key, in this process (a stamp) and across processes (the UPDATE's condition). */
const GEBRUIK_STAP_MS = 60_000;
const laatstGemarkeerd = new Map<string, number>();

async function markeerGebruik(db: Db, keyId: string, now: Date): Promise<void> {
  const t = now.getTime();
  const vorige = laatstGemarkeerd.get(keyId);
  if (vorige !== undefined && t >= vorige && t - vorige < GEBRUIK_STAP_MS) return;
  if (laatstGemarkeerd.size >= MAX_GECACHTE_SLEUTELS) laatstGemarkeerd.delete(laatstGemarkeerd.keys().next().value!);
  laatstGemarkeerd.set(keyId, t);
  try {
    await db.apiKey.updateMany({
      where: { id: keyId, OR: [{ laatstGebruiktOp: null }, { laatstGebruiktOp: { lte: new Date(t - GEBRUIK_STAP_MS) } }] },
      data: { laatstGebruiktOp: now },
    });
  } catch {
  }
}
