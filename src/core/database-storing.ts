/**
 * An unreachable database is an outage, not a bug: 503 with Retry-After (uncharged, the charge never
 * committed) and one log line at the start and one at the end, not a stack trace per request. A probe
 * notices recovery; requests are tried as normal meanwhile, so no restart is needed.
 */
import type { Services } from './context.ts';
import { InsightFout } from './errors.ts';
import { buitenVerzoek } from '../logging.ts';

export const RETRY_AFTER_S = 5;
const PROBE_MS = 1000;

const ONBEREIKBAAR_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08006', // admin shutdown, crash, starting, too many connections, connection failures
  '57014', // statement cancelled (DB_QUERY_TIMEOUT_MS as the server's statement_timeout): overloaded or blocked, the statement rolled back
  '25006', '53100', '53200', // read-only (a standby after a failover), disk full, out of memory
  'P1001', 'P1002', 'P1017', 'P2024', // Prisma: can't reach, timed out, server closed, pool timeout
]);
const ONBEREIKBAAR_TEKST = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Can't reach database|Cannot use a pool after calling end|connection (?:refused|closed|reset)|DatabaseNotReachable|server closed the connection/i;

export function isDatabaseOnbereikbaar(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 8 && typeof e === 'object' && e !== null; i++) {
    const o = e as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; originalCode?: unknown; meta?: { driverAdapterError?: unknown } };
    if (typeof o.code === 'string' && ONBEREIKBAAR_CODES.has(o.code)) return true;
    if (typeof o.originalCode === 'string' && ONBEREIKBAAR_CODES.has(o.originalCode)) return true;
    if (o.kind === 'DatabaseNotReachable' || o.kind === 'ConnectionClosed' || o.kind === 'SocketTimeout') return true;
    if (typeof o.message === 'string' && ONBEREIKBAAR_TEKST.test(o.message)) return true;
    // A Prisma model query keeps the driver's error under meta, not cause.
    e = o.cause ?? o.meta?.driverAdapterError;
  }
  return false;
}

interface Storing {
  sinds: number;
  geweigerd: number;
  probe: NodeJS.Timeout;
}

const storingen = new WeakMap<Services['db'], Storing>();

/** The first one of an outage logs it and starts the probe. */
export function meldOnbereikbaar(services: Services, err: unknown): InsightFout {
  const lopend = storingen.get(services.db);
  if (lopend) lopend.geweigerd++;
  else {
    services.log.error({ err: { message: err instanceof Error ? err.message : String(err) } }, 'database onbereikbaar: verzoeken krijgen 503 tot hij terug is');
    // Started outside this request's context, so the recovery line is not logged as its.
    const storing: Storing = { sinds: Date.now(), geweigerd: 1, probe: buitenVerzoek(() => setInterval(() => void peil(services), PROBE_MS)) };
    storing.probe.unref();
    storingen.set(services.db, storing);
  }
  return new InsightFout('niet_beschikbaar', 'De database is tijdelijk niet bereikbaar; probeer het over enkele seconden opnieuw.', {
    headers: { 'Retry-After': String(RETRY_AFTER_S) },
  });
}

/** False on a standby (the DNS name still on it after a failover): it answers reads but takes no charge. Throws when unreachable. */
export async function neemtSchrijfopdrachten(db: Services['db']): Promise<boolean> {
  const [r] = await db.$queryRaw<{ ro: string }[]>`SELECT current_setting('transaction_read_only') AS ro`;
  return r?.ro !== 'on';
}

async function peil(services: Services): Promise<void> {
  const storing = storingen.get(services.db);
  if (!storing) return;
  try {
    if (!(await neemtSchrijfopdrachten(services.db))) return;
  } catch {
    return;
  }
  if (storingen.get(services.db) !== storing) return;
  clearInterval(storing.probe);
  storingen.delete(services.db);
  services.log.warn({ geweigerd: storing.geweigerd, duurMs: Date.now() - storing.sinds }, 'database weer bereikbaar');
}

export function stopStoringsProbe(services: Services): void {
  const storing = storingen.get(services.db);
  if (storing) clearInterval(storing.probe);
  storingen.delete(services.db);
}

export function inStoring(services: Services): boolean {
  return storingen.has(services.db);
}
