-- Natural batching across keys and accounts (src/db/bundel.ts): a process sends at most one rate-limit
-- statement and one charge statement at a time, whatever key or account the requests are for; what
-- arrives meanwhile goes next, as one statement. Before, the batches were per key and per account, so
-- under traffic of many keys (many customers) nearly every request still sent its own statements.
--
-- Each group (one key and its buckets, or one account's charges) is handled exactly as before by
-- snelheid_controleer or afrekenen_bundel, in a subtransaction of its own: a group the database refuses
-- fails alone. The caller sends the groups sorted by key or account id, so concurrent statements of
-- several processes lock their rows in one order (no deadlock between them).

CREATE FUNCTION "snelheid_controleer_bundel"(p_groepen JSONB)
RETURNS TABLE (r_groep INTEGER, r_geldig BOOLEAN, r_toegelaten INTEGER, r_emmer TEXT, r_aantal INTEGER, r_oudste_ms BIGINT, r_saldo INTEGER, r_fout TEXT)
LANGUAGE plpgsql AS $$
DECLARE
  g JSONB;
  i INTEGER;
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_groepen) - 1 LOOP
    g := p_groepen -> i;
    BEGIN
      RETURN QUERY SELECT i, s.r_geldig, s.r_toegelaten, s.r_emmer, s.r_aantal, s.r_oudste_ms, s.r_saldo, NULL::text
      FROM snelheid_controleer((g ->> 'sleutel')::uuid, string_to_array(g ->> 'emmers', ','), string_to_array(g ->> 'limieten', ',')::int[],
                               (g ->> 'nu')::bigint, (g ->> 'aantal')::int) s;
    EXCEPTION WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::boolean, NULL::integer, NULL::text, NULL::integer, NULL::bigint, NULL::integer, SQLERRM;
    END;
  END LOOP;
END $$;

CREATE FUNCTION "afrekenen_bundels"(p_groepen JSONB)
RETURNS TABLE (r_groep INTEGER, r_nr INTEGER, r_ok BOOLEAN, r_saldo INTEGER, r_fout TEXT, r_webhook BOOLEAN) LANGUAGE plpgsql AS $$
DECLARE
  i INTEGER;
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_groepen) - 1 LOOP
    BEGIN
      RETURN QUERY SELECT i, b.r_nr, b.r_ok, b.r_saldo, b.r_fout, b.r_webhook FROM afrekenen_bundel(p_groepen -> i) b;
    EXCEPTION WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::integer, NULL::boolean, NULL::integer, SQLERRM, false;
    END;
  END LOOP;
END $$;
