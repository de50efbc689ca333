/** A PostgreSQL connection that fails as one Dutch line naming host and database, never the password. */

type Soort = 'onbereikbaar' | 'bestaat-niet' | 'geweigerd' | 'tls';

const PER_CODE: Record<string, Soort> = {
  ECONNREFUSED: 'onbereikbaar', ENOTFOUND: 'onbereikbaar', EHOSTUNREACH: 'onbereikbaar', ENETUNREACH: 'onbereikbaar', ETIMEDOUT: 'onbereikbaar', EAI_AGAIN: 'onbereikbaar', P1001: 'onbereikbaar',
  DatabaseNotReachable: 'onbereikbaar', '3D000': 'bestaat-niet', P1003: 'bestaat-niet', DatabaseDoesNotExist: 'bestaat-niet',
  '28000': 'geweigerd', '28P01': 'geweigerd', P1000: 'geweigerd', P1010: 'geweigerd', DatabaseAccessDenied: 'geweigerd', AuthenticationFailed: 'geweigerd',
  TlsConnectionError: 'tls',
};

// The schema engine (`insight migrate`) gives text only.
const PER_TEKST: [RegExp, Soort][] = [
  [/Can't reach database server|ECONNREFUSED/, 'onbereikbaar'],
  [/Database `[^`]*` does not exist|database "[^"]*" does not exist/, 'bestaat-niet'],
  [/denied access on the database|password authentication failed|role "[^"]*" does not exist|Authentication failed/i, 'geweigerd'],
  [/\bTLS\b|\bSSL\b/, 'tls'],
];

function soortVan(fout: unknown): Soort | null {
  let e: unknown = fout;
  for (let i = 0; i < 8 && typeof e === 'object' && e !== null; i++) {
    const o = e as { code?: unknown; originalCode?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } };
    for (const c of [o.originalCode, o.kind, o.code]) if (typeof c === 'string' && PER_CODE[c]) return PER_CODE[c];
    if (typeof o.message === 'string') for (const [r, s] of PER_TEKST) if (r.test(o.message)) return s;
    e = o.cause ?? o.meta?.driverAdapterError;
  }
  return null;
}

/** Null when the error is not a failed connection or there is no PostgreSQL URL (PGlite). */
export function verbindingsfoutTekst(fout: unknown, databaseUrl: string | undefined): string | null {
  if (!databaseUrl || !/^postgres(ql)?:/i.test(databaseUrl)) return null;
  const soort = soortVan(fout);
  if (!soort) return null;
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return null;
  }
  const gebruiker = decodeURIComponent(url.username);
  const host = url.host || 'localhost';
  const db = decodeURIComponent(url.pathname.slice(1)) || gebruiker || 'postgres';
  switch (soort) {
    case 'onbereikbaar':
      return `Geen verbinding met de PostgreSQL-server ${host} (database ${db}): draait de server, en kloppen host en poort in DATABASE_URL?`;
    case 'bestaat-niet':
      return `Database ${db} bestaat niet op de PostgreSQL-server ${host}: maak haar aan (createdb ${db}) of corrigeer DATABASE_URL.`;
    case 'geweigerd':
      return `De PostgreSQL-server ${host} weigert ${gebruiker ? `gebruiker ${gebruiker}` : 'de gebruiker'} voor database ${db} (onbekende rol of verkeerd wachtwoord): controleer DATABASE_URL.`;
    case 'tls':
      return `Geen TLS-verbinding met de PostgreSQL-server ${host} (database ${db}): zet TLS aan op de server, of pas sslmode in DATABASE_URL aan.`;
  }
}
