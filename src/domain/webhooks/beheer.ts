/** An endpoint of another account is treated exactly like one that does not exist (null), so ids leak nothing. */
import { randomBytes } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client.ts';
import { sqlRijen, TX_OPTS, UUID_RE, type Db } from '../../db/client.ts';
import type { Cursor } from '../../core/cursor.ts';
import { controleerDoel, OngeldigDoel, type Resolver } from './doeladres.ts';
import { GEBEURTENIS_TYPES, meldNieuweAfleveringen, nieuweBerichtId, tijdstempel, type GebeurtenisType } from './gebeurtenissen.ts';

export const MAX_ENDPOINTS = 10;
/** Endpoints registered with test keys, counted apart: a test key cannot fill the account's live places. */
export const MAX_TEST_ENDPOINTS = 5;
/** Both signatures are sent meanwhile. */
export const OVERLAP_MS = 24 * 3600_000;

/** Sent to that one endpoint only, whatever it subscribes to. */
export const TEST_TYPE = 'webhook.test';

export interface EndpointRij {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  omschrijving: string | null;
  actief: boolean;
  uitgeschakeldOp: Date | null;
  uitschakelReden: string | null;
  aangemaaktOp: Date;
  vorigGeheimTot: Date | null;
  falendSinds: Date | null;
  test: boolean;
}

export class WebhookFout extends Error {
  readonly soort: 'ongeldig' | 'te_veel' | 'gesloten';
  constructor(soort: 'ongeldig' | 'te_veel' | 'gesloten', message: string) {
    super(message);
    this.soort = soort;
  }
}

export interface DoelOpties {
  onveilig: boolean;
  resolver?: Resolver;
}


export function nieuwGeheim(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const select = {
  id: true, accountId: true, url: true, events: true, omschrijving: true, actief: true, uitgeschakeldOp: true,
  uitschakelReden: true, aangemaaktOp: true, vorigGeheimTot: true, falendSinds: true, test: true,
} as const;

async function controleerUrl(url: string, opts: DoelOpties): Promise<void> {
  try {
    await controleerDoel(url, opts);
  } catch (e) {
    if (e instanceof OngeldigDoel) throw new WebhookFout('ongeldig', `Ongeldige invoer: ${e.message}`);
    throw e;
  }
}

function controleerEvents(events: string[]): GebeurtenisType[] {
  const onbekend = events.filter((e) => !GEBEURTENIS_TYPES.includes(e as GebeurtenisType));
  if (onbekend.length) {
    throw new WebhookFout('ongeldig', `Ongeldige invoer: events: onbekend type ${onbekend.join(', ')}; kies uit ${GEBEURTENIS_TYPES.join(', ')}.`);
  }
  return [...new Set(events)] as GebeurtenisType[];
}

/** More work in a create's or rotation's transaction: the answer stored for an Idempotency-Key. */
export type Binnen = (tx: Prisma.TransactionClient, r: { endpoint: EndpointRij; geheim: string }) => Promise<void>;

/** The only time the secret is shown. */
export async function maakEndpoint(
  db: Db,
  a: { accountId: string; url: string; events: string[]; omschrijving?: string | null; now: Date; test?: boolean } & DoelOpties,
  binnen?: Binnen,
): Promise<{ endpoint: EndpointRij; geheim: string }> {
  const events = controleerEvents(a.events);
  const test = a.test ?? false;
  const max = test ? MAX_TEST_ENDPOINTS : MAX_ENDPOINTS;
  const binnenLimiet = async (d: Db | Prisma.TransactionClient) => {
    if ((await d.webhookEndpoint.count({ where: { accountId: a.accountId, test } })) >= max) {
      throw new WebhookFout('te_veel', `Dit account heeft al ${max} ${test ? 'test-webhooks' : 'webhooks'}; verwijder er eerst een.`);
    }
  };
  // Before the address's DNS lookup too (a full account costs none), and again under the lock.
  await binnenLimiet(db);
  await controleerUrl(a.url, a);
  const geheim = nieuwGeheim();
  // On the account row's lock: two concurrent creates cannot make 11.
  const endpoint = await db.$transaction(async (tx) => {
    const [acc] = await tx.$queryRawUnsafe<{ gesloten: boolean }[]>('SELECT gesloten_op IS NOT NULL AS gesloten FROM account WHERE id = $1::uuid FOR UPDATE', a.accountId);
    // Closed while its address was checked (insight account close): nothing is made.
    if (acc?.gesloten) throw new WebhookFout('gesloten', 'Dit account is gesloten.');
    await binnenLimiet(tx);
    const endpoint = await tx.webhookEndpoint.create({
      data: { accountId: a.accountId, url: a.url, events, omschrijving: a.omschrijving ?? null, geheim, aangemaaktOp: a.now, test },
      select,
    });
    await binnen?.(tx, { endpoint, geheim });
    return endpoint;
  }, TX_OPTS);
  return { endpoint, geheim };
}

export async function lijstEndpoints(db: Db, accountId: string, alleenTest = false): Promise<EndpointRij[]> {
  return db.webhookEndpoint.findMany({ where: { accountId, ...(alleenTest ? { test: true } : {}) }, orderBy: [{ aangemaaktOp: 'asc' }, { id: 'asc' }], select });
}

export async function haalEndpoint(db: Db, accountId: string, id: string): Promise<EndpointRij | null> {
  if (!UUID_RE.test(id)) return null;
  return db.webhookEndpoint.findFirst({ where: { id, accountId }, select });
}

/** Switching on again clears the disable reason and the failure streak. */
export async function wijzigEndpoint(
  db: Db,
  a: { accountId: string; id: string; url?: string; events?: string[]; omschrijving?: string | null; actief?: boolean; now?: Date } & DoelOpties,
): Promise<EndpointRij | null> {
  const now = a.now ?? new Date();
  const huidig = await haalEndpoint(db, a.accountId, a.id);
  if (!huidig) return null;
  const events = a.events ? controleerEvents(a.events) : undefined;
  if (a.url !== undefined) await controleerUrl(a.url, a);
  const aan = a.actief === true && !huidig.actief;
  const uit = a.actief === false && huidig.actief;
  const data = {
    ...(a.url !== undefined ? { url: a.url } : {}),
    ...(events ? { events } : {}),
    ...(a.omschrijving !== undefined ? { omschrijving: a.omschrijving } : {}),
    ...(aan ? { actief: true, uitgeschakeldOp: null, uitschakelReden: null, falendSinds: null, laatstGefaaldOp: null } : {}),
    ...(uit ? { actief: false, uitgeschakeldOp: now, uitschakelReden: 'Uitgeschakeld door het account.' } : {}),
  };
  if (Object.keys(data).length === 0) return huidig;
  const r = await db.webhookEndpoint.updateMany({ where: { id: a.id, accountId: a.accountId }, data });
  if (r.count === 0) return null;
  if (aan) {
    // Waiting deliveries go now, not at their back-off step of up to a day.
    await db.webhookDelivery.updateMany({ where: { endpointId: a.id, toestand: 'wachtend' }, data: { volgendePoging: now } });
    meldNieuweAfleveringen();
  }
  return haalEndpoint(db, a.accountId, a.id);
}

export async function verwijderEndpoint(db: Db, accountId: string, id: string): Promise<boolean> {
  if (!UUID_RE.test(id)) return false;
  return (await db.webhookEndpoint.deleteMany({ where: { id, accountId } })).count === 1;
}

export async function roteerGeheim(db: Db, accountId: string, id: string, now: Date, binnen?: Binnen): Promise<{ endpoint: EndpointRij; geheim: string } | null> {
  if (!UUID_RE.test(id)) return null;
  const geheim = nieuwGeheim();
  return db.$transaction(async (tx) => {
    const n = await tx.$executeRawUnsafe(
      `UPDATE webhook SET vorig_geheim = geheim, vorig_geheim_tot = $3::timestamptz, geheim = $4 WHERE id = $1::uuid AND account_id = $2::uuid`,
      id, accountId, new Date(now.getTime() + OVERLAP_MS), geheim,
    );
    const endpoint = n === 0 ? null : await tx.webhookEndpoint.findFirst({ where: { id, accountId }, select });
    if (!endpoint) return null;
    await binnen?.(tx, { endpoint, geheim });
    return { endpoint, geheim };
  }, TX_OPTS);
}

/** Also when switched off: then it waits. */
export async function stuurTest(db: Db, accountId: string, id: string, now: Date): Promise<{ berichtId: string; afleveringId: string } | null> {
  const endpoint = await haalEndpoint(db, accountId, id);
  if (!endpoint) return null;
  const berichtId = nieuweBerichtId();
  const payload = { type: TEST_TYPE, timestamp: tijdstempel(now), data: { webhook_id: endpoint.id, url: endpoint.url } };
  // One statement, not an interactive transaction holding a pooled connection while a burst waits for one.
  const [aflevering] = await sqlRijen<{ id: string }>(
    db,
    `WITH g AS (
       INSERT INTO webhook_gebeurtenis (id, account_id, type, payload, aangemaakt_op)
       VALUES ($1, $2::uuid, $3, $4::jsonb, $5::timestamptz) RETURNING id)
     INSERT INTO webhook_aflevering (id, event_id, endpoint_id, volgende_poging)
     SELECT uuid_v7(), g.id, $6::uuid, $5::timestamptz FROM g RETURNING id::text AS id`,
    [berichtId, accountId, TEST_TYPE, JSON.stringify(payload), now, endpoint.id],
  );
  meldNieuweAfleveringen();
  return { berichtId, afleveringId: aflevering.id };
}

export interface AfleveringRij {
  id: string;
  eventId: string;
  type: string;
  toestand: string;
  pogingen: number;
  laatsteStatus: number | null;
  laatsteFout: string | null;
  volgendePoging: Date | null;
  aangemaaktOp: Date;
}

export async function afleveringenPagina(
  db: Db,
  a: { accountId: string; id: string; limiet: number; na: Cursor | null },
): Promise<{ regels: AfleveringRij[]; volgende: Cursor | null } | null> {
  const endpoint = await haalEndpoint(db, a.accountId, a.id);
  if (!endpoint) return null;
  const rows = await db.$queryRawUnsafe<(Omit<AfleveringRij, 'aangemaaktOp'> & { aangemaaktOp: Date })[]>(
    `SELECT l.id, l.event_id AS "eventId", g.type, l.toestand, l.eerdere_pogingen + l.pogingen AS pogingen, l.laatste_status AS "laatsteStatus",
            l.laatste_fout AS "laatsteFout", l.volgende_poging AS "volgendePoging", g.aangemaakt_op AS "aangemaaktOp"
     FROM webhook_aflevering l JOIN webhook_gebeurtenis g ON g.id = l.event_id
     WHERE l.endpoint_id = $1::uuid AND ($2::uuid IS NULL OR l.id < $2::uuid) -- ids are time-ordered (uuid_v7)
     ORDER BY l.id DESC LIMIT $3`,
    a.id, a.na?.id ?? null, a.limiet + 1,
  );
  const pagina = rows.slice(0, a.limiet).map((r) => ({ ...r, volgendePoging: volgendePoging(endpoint.actief, r) }));
  const laatste = pagina[pagina.length - 1];
  return { regels: pagina, volgende: rows.length > a.limiet && laatste ? { t: laatste.aangemaaktOp, id: laatste.id } : null };
}

/** A switched-off endpoint sends nothing, so shows no next attempt. */
function volgendePoging(actief: boolean, r: { toestand: string; volgendePoging: Date | null }): Date | null {
  return actief && r.toestand === 'wachtend' ? r.volgendePoging : null;
}

/** Same webhook-id, a fresh series of attempts; the attempts shown keep counting. */
export async function afleveringOpnieuw(db: Db, a: { accountId: string; id: string; aflevering: string; now: Date }): Promise<AfleveringRij | null> {
  if (!UUID_RE.test(a.id) || !UUID_RE.test(a.aflevering)) return null;
  const r = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE webhook_aflevering l SET toestand = 'wachtend', eerdere_pogingen = l.eerdere_pogingen + l.pogingen, pogingen = 0, volgende_poging = $4::timestamptz, geclaimd_tot = NULL, bijgewerkt_op = $4::timestamptz
     FROM webhook w WHERE l.id = $3::uuid AND l.endpoint_id = $1::uuid AND w.id = l.endpoint_id AND w.account_id = $2::uuid AND l.toestand <> 'bezig'
     RETURNING l.id`,
    a.id, a.accountId, a.aflevering, a.now,
  );
  if (r.length === 0) {
    // In flight: report it as it is rather than start a second attempt beside it.
    const bestaand = await db.webhookDelivery.findFirst({ where: { id: a.aflevering, endpointId: a.id, endpoint: { accountId: a.accountId } }, select: { id: true } });
    if (!bestaand) return null;
  }
  meldNieuweAfleveringen();
  const p = await db.webhookDelivery.findUnique({ where: { id: a.aflevering }, include: { event: { select: { type: true, aangemaaktOp: true } }, endpoint: { select: { actief: true } } } });
  if (!p) return null; // removed after its retention meanwhile (opruimen.ts)
  return {
    id: p.id, eventId: p.eventId, type: p.event.type, toestand: p.toestand, pogingen: p.eerderePogingen + p.pogingen, laatsteStatus: p.laatsteStatus,
    laatsteFout: p.laatsteFout, volgendePoging: volgendePoging(p.endpoint.actief, p), aangemaaktOp: p.event.aangemaaktOp,
  };
}
