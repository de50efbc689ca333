/**
 * The money-path invariants of the fault suite, checked in SQL on the database itself after the faults
 * (decisions: balance never negative, every credit moved is a ledger row, debit + usage record + webhook
 * event commit together, an idempotent request is charged at most once). Each query returns the rows
 * that break a rule, so a failure names them. zoekSchendingen reads a PostgreSQL URL; zoekSchendingenMet any
 * query function (PGlite through Prisma).
 */
import pg from 'pg';

export interface Schendingen {
  negatiefSaldo: unknown[];
  grootboekNietSaldo: unknown[];
  afschrijvingZonderVerbruik: unknown[];
  verbruikZonderAfschrijving: unknown[];
  gebeurtenisZonderVerbruik: unknown[];
  verbruikZonderGebeurtenis: unknown[];
  idempotentMeerdereKeren: unknown[];
  klaarZonderAntwoord: unknown[];
  klaarZonderAfrekening: unknown[];
  mcpBezig: unknown[];
  mcpAntwoordNietEenmaalAfgerekend: unknown[];
  dagtotaalNietVerbruik: unknown[];
  dagtotaalNietGrootboek: unknown[];
}

const QUERIES: Record<keyof Schendingen, string> = {
  negatiefSaldo: 'SELECT id, credits FROM account WHERE credits < 0',
  grootboekNietSaldo: `SELECT a.id, a.credits, coalesce(sum(g.credits), 0)::int AS grootboek FROM account a
    LEFT JOIN grootboek g ON g.account_id = a.id GROUP BY a.id HAVING a.credits <> coalesce(sum(g.credits), 0)`,
  // usage_id is unique, so "a debit has a usage row" and "a usage row has a debit" make it exactly one each way.
  afschrijvingZonderVerbruik: `SELECT g.id, g.credits, v.credits AS verbruik FROM grootboek g LEFT JOIN verbruik v ON v.id = g.usage_id
    WHERE g.soort = 'afschrijving' AND (v.id IS NULL OR v.credits <> -g.credits OR v.account_id <> g.account_id)`,
  verbruikZonderAfschrijving: `SELECT v.id, v.credits FROM verbruik v LEFT JOIN grootboek g ON g.usage_id = v.id
    WHERE v.credits > 0 AND g.id IS NULL`,
  // inzicht.voltooid carries the usage row's id as verzoek_id (inzicht.mislukt deliberately joins none).
  gebeurtenisZonderVerbruik: `SELECT e.id FROM webhook_gebeurtenis e LEFT JOIN verbruik v ON v.id::text = e.payload->'data'->>'verzoek_id'
    WHERE e.type = 'inzicht.voltooid' AND (v.id IS NULL OR v.account_id <> e.account_id)`,
  // Accounts with a subscribed endpoint: every usage row has exactly one inzicht.voltooid event.
  verbruikZonderGebeurtenis: `SELECT v.id, count(e.id)::int AS gebeurtenissen FROM verbruik v
    JOIN webhook w ON w.account_id = v.account_id AND w.actief AND 'inzicht.voltooid' = ANY (w.events)
    LEFT JOIN webhook_gebeurtenis e ON e.type = 'inzicht.voltooid' AND e.payload->'data'->>'verzoek_id' = v.id::text
    WHERE v.status IN (200, 422) GROUP BY v.id HAVING count(e.id) <> 1`,
  idempotentMeerdereKeren: `SELECT e.account_id, e.payload->'data'->>'voorziening' AS voorziening, e.payload->'data'->>'idempotency_key' AS sleutel, count(*)::int AS keer
    FROM webhook_gebeurtenis e WHERE e.type = 'inzicht.voltooid' AND e.payload->'data' ? 'idempotency_key'
    GROUP BY 1, 2, 3 HAVING count(*) > 1`,
  klaarZonderAntwoord: `SELECT id, status FROM idempotentie WHERE toestand = 'klaar' AND (antwoord IS NULL OR status IS NULL)`,
  // A completed REST claim of an account with an endpoint was settled exactly once: one event with its key.
  // (An MCP call's event carries no fingerprint: its stored answers are checked against usage rows below.)
  klaarZonderAfrekening: `SELECT i.id, i.sleutel, count(e.id)::int AS gebeurtenissen FROM idempotentie i
    JOIN api_sleutel s ON s.id = i.key_id
    JOIN webhook w ON w.account_id = s.account_id AND w.actief AND 'inzicht.voltooid' = ANY (w.events)
    LEFT JOIN webhook_gebeurtenis e ON e.type = 'inzicht.voltooid' AND e.account_id = s.account_id
      AND e.payload->'data'->>'idempotency_key' = i.sleutel AND e.payload->'data'->>'voorziening' = i.scope
    WHERE i.toestand = 'klaar' AND i.status = 200 AND i.scope <> 'mcp' GROUP BY i.id, i.sleutel HAVING count(e.id) <> 1`,
  // An MCP call holds no claim (decisions section 5): its record is written only by the statement that settles it.
  mcpBezig: `SELECT id, key_id, toestand FROM idempotentie WHERE scope = 'mcp' AND toestand <> 'klaar'`,
  // An MCP answer is stored by the statement that charges it, and deleted there when the charge is refused: so each
  // stored answer has exactly one usage row of its key, kanaal, status and moment (both written with the call's
  // \`nu\`), charged what the answer says. Counted per moment, because calls of one key can share a millisecond.
  // Both directions, usage rows within 24 hours of the newest (an answer past its window is swept, its usage row
  // stays): a charged call without a stored answer would be charged again by its repeat. A 402 stores nothing.
  mcpAntwoordNietEenmaalAfgerekend: `WITH i AS (
      SELECT key_id, aangemaakt_op, status, count(*)::int AS antwoorden,
             sum(CASE WHEN status = 200 THEN (antwoord->'meta'->>'gefactureerd_cent')::int ELSE 0 END)::int AS cent
      FROM idempotentie WHERE scope = 'mcp' AND toestand = 'klaar' GROUP BY 1, 2, 3),
    v AS (
      SELECT key_id, aangemaakt_op, status, count(*)::int AS verbruik,
             sum(CASE WHEN status = 200 THEN gefactureerd_cent ELSE 0 END)::int AS cent
      FROM verbruik WHERE kanaal = 'mcp' AND status <> 402
        AND aangemaakt_op > (SELECT max(aangemaakt_op) FROM verbruik) - interval '24 hours' GROUP BY 1, 2, 3)
    SELECT coalesce(i.key_id, v.key_id) AS key_id, coalesce(i.aangemaakt_op, v.aangemaakt_op) AS aangemaakt_op, coalesce(i.status, v.status) AS status,
           coalesce(i.antwoorden, 0) AS antwoorden, i.cent, coalesce(v.verbruik, 0) AS verbruik, v.cent AS verbruik_cent
    FROM i FULL JOIN v ON v.key_id = i.key_id AND v.aangemaakt_op = i.aangemaakt_op AND v.status = i.status
    WHERE v.verbruik IS DISTINCT FROM i.antwoorden OR v.cent IS DISTINCT FROM i.cent`,
  // The web app's day totals (kept by a trigger on verbruik, in the same transaction) equal a count of the usage rows.
  dagtotaalNietVerbruik: `WITH v AS (
      SELECT account_id, (aangemaakt_op AT TIME ZONE 'Europe/Amsterdam')::date AS dag, voorziening, key_id, status < 400 AS geslaagd,
             count(*)::int AS aantal, sum(credits)::int AS credits, sum(gefactureerd_cent)::int AS cent
      FROM verbruik GROUP BY 1, 2, 3, 4, 5)
    SELECT coalesce(v.account_id, d.account_id) AS account_id, coalesce(v.dag, d.dag) AS dag, v.aantal, d.aantal AS dagtotaal
    FROM v FULL JOIN verbruik_per_dag d USING (account_id, dag, voorziening, key_id, geslaagd)
    WHERE v.aantal IS DISTINCT FROM d.aantal OR v.credits IS DISTINCT FROM d.credits OR v.cent IS DISTINCT FROM d.gefactureerd_cent`,
  // The balance page's day totals (kept by a trigger on grootboek) equal a count of the ledger rows.
  dagtotaalNietGrootboek: `WITH g AS (
      SELECT account_id, (aangemaakt_op AT TIME ZONE 'Europe/Amsterdam')::date AS dag, count(*)::int AS aantal FROM grootboek GROUP BY 1, 2)
    SELECT coalesce(g.account_id, d.account_id) AS account_id, coalesce(g.dag, d.dag) AS dag, g.aantal, d.aantal AS dagtotaal
    FROM g FULL JOIN grootboek_per_dag d USING (account_id, dag) WHERE g.aantal IS DISTINCT FROM d.aantal`,
};

export async function zoekSchendingen(databaseUrl: string): Promise<Schendingen> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return await zoekSchendingenMet(async (sql) => (await c.query(sql)).rows);
  } finally {
    await c.end();
  }
}

export async function zoekSchendingenMet(query: (sql: string) => Promise<unknown[]>): Promise<Schendingen> {
  const uit = {} as Schendingen;
  for (const [naam, sql] of Object.entries(QUERIES)) uit[naam as keyof Schendingen] = await query(sql);
  return uit;
}

export const GEEN_SCHENDINGEN: Schendingen = Object.fromEntries(Object.keys(QUERIES).map((k) => [k, []])) as unknown as Schendingen;

/** Usage rows of an account, the credits they charged, and its balance. */
export async function verbruikPerAccount(databaseUrl: string, accountId: string): Promise<{ verbruik: number; credits: number; saldo: number }> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const r = await c.query(
      `SELECT (SELECT count(*) FROM verbruik WHERE account_id = $1)::int AS verbruik,
              (SELECT coalesce(sum(credits), 0) FROM verbruik WHERE account_id = $1)::int AS credits,
              (SELECT credits FROM account WHERE id = $1) AS saldo`,
      [accountId],
    );
    return r.rows[0];
  } finally {
    await c.end();
  }
}
