-- Natural batching of the two statements that update a hot row (src/db/bundel.ts): a process sends at
-- most one rate-limit check per key and one charge per account at a time; what arrives meanwhile goes
-- in the next statement together, handled in arrival order in one transaction.

-- The rate-limit check for p_aantal requests of one key at once (same buckets, same limits). The first
-- r_toegelaten of them are admitted (as many as every bucket still has room for) and counted in the
-- current second; the rest are refused and spend nothing. Otherwise as before: one row per bucket, the
-- count before these requests, the oldest counted second (ms), the key's validity and the balance.
DROP FUNCTION "snelheid_controleer"(UUID, TEXT[], INTEGER[], BIGINT);
CREATE FUNCTION "snelheid_controleer"(p_key UUID, p_emmers TEXT[], p_limieten INTEGER[], p_nu_ms BIGINT, p_aantal INTEGER)
RETURNS TABLE (r_geldig BOOLEAN, r_toegelaten INTEGER, r_emmer TEXT, r_aantal INTEGER, r_oudste_ms BIGINT, r_saldo INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  nu_s BIGINT := floor(p_nu_ms / 1000.0)::bigint;
  v_geldig BOOLEAN;
  v_saldo INTEGER;
  v_sec BIGINT;
  v_t INTEGER[];
  v_eff BIGINT;
  v_aantal INTEGER[] := '{}';
  v_oudste BIGINT[] := '{}';
  v_toegelaten INTEGER := p_aantal;
  v_som INTEGER;
  v_old BIGINT;
  i INTEGER;
  o INTEGER;
  k BIGINT;
BEGIN
  SELECT s.ingetrokken_op IS NULL AND s.verloopt_op > to_timestamp(p_nu_ms / 1000.0), a.credits INTO v_geldig, v_saldo
  FROM api_sleutel s JOIN account a ON a.id = s.account_id WHERE s.id = p_key;
  IF v_geldig IS DISTINCT FROM true THEN
    RETURN QUERY SELECT false, 0, NULL::text, 0, NULL::bigint, NULL::integer;
    RETURN;
  END IF;
  FOR i IN 1 .. array_length(p_emmers, 1) LOOP
    SELECT st.seconde, st.tellingen INTO v_sec, v_t FROM snelheid_stand st
    WHERE st.key_id = p_key AND st.emmer = p_emmers[i] FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO snelheid_stand (key_id, emmer, seconde, tellingen)
      VALUES (p_key, p_emmers[i], nu_s, array_fill(0, ARRAY[60])) ON CONFLICT DO NOTHING;
      SELECT st.seconde, st.tellingen INTO v_sec, v_t FROM snelheid_stand st
      WHERE st.key_id = p_key AND st.emmer = p_emmers[i] FOR UPDATE;
    END IF;
    -- Another process's clock may be a little ahead: never move the window back.
    v_eff := greatest(v_sec, nu_s);
    v_t := snelheid_schuif(v_t, v_sec, v_eff);
    v_som := 0;
    v_old := NULL;
    FOR o IN 0 .. 59 LOOP
      k := v_eff - 59 + o;
      IF v_t[(k % 60)::int + 1] > 0 THEN
        IF v_old IS NULL THEN v_old := k * 1000; END IF;
        v_som := v_som + v_t[(k % 60)::int + 1];
      END IF;
    END LOOP;
    v_aantal := v_aantal || v_som;
    v_oudste := v_oudste || v_old;
    v_toegelaten := least(v_toegelaten, greatest(0, p_limieten[i] - v_som));
  END LOOP;
  IF v_toegelaten > 0 THEN
    UPDATE snelheid_stand st
    SET tellingen = (
          SELECT array_agg(CASE WHEN j = (greatest(st.seconde, nu_s) % 60)::int + 1 THEN x + v_toegelaten ELSE x END ORDER BY j)
          FROM unnest(snelheid_schuif(st.tellingen, st.seconde, greatest(st.seconde, nu_s))) WITH ORDINALITY AS u(x, j)
        ),
        seconde = greatest(st.seconde, nu_s)
    WHERE st.key_id = p_key AND st.emmer = ANY (p_emmers);
  END IF;
  RETURN QUERY SELECT true, v_toegelaten, e.emmer, v_aantal[e.n::int], v_oudste[e.n::int], v_saldo
  FROM unnest(p_emmers) WITH ORDINALITY AS e(emmer, n) ORDER BY e.n;
END $$;

-- The charges of one account at once, in arrival order, each exactly as afrekenen settles one lookup
-- (its own subtransaction: an error in one item undoes that item only and is reported as r_fout).
-- p_items: a JSON array of objects with the parameters of afrekenen by name, all of one account.
-- r_nr counts from 0. r_webhook: the account has an active webhook endpoint (otherwise no event was
-- written, and the delivery worker need not be woken).
CREATE FUNCTION "afrekenen_bundel"(p_items JSONB)
RETURNS TABLE (r_nr INTEGER, r_ok BOOLEAN, r_saldo INTEGER, r_fout TEXT, r_webhook BOOLEAN) LANGUAGE plpgsql AS $$
DECLARE
  x JSONB;
  i INTEGER;
  v_ok BOOLEAN;
  v_saldo INTEGER;
  v_webhook BOOLEAN := EXISTS (SELECT 1 FROM webhook w WHERE w.account_id = (p_items -> 0 ->> 'account')::uuid AND w.actief);
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_items) - 1 LOOP
    x := p_items -> i;
    BEGIN
      SELECT a.r_ok, a.r_saldo INTO v_ok, v_saldo FROM afrekenen(
        (x ->> 'verzoek')::uuid, (x ->> 'account')::uuid, (x ->> 'sleutel')::uuid, x ->> 'kanaal', x ->> 'voorziening',
        (x ->> 'status')::int, (x ->> 'credits')::int, (x ->> 'eenheid_cent')::int, x ->> 'adres', (x ->> 'nu')::timestamptz,
        x ->> 'tijdstempel', x ->> 'event_id', x ->> 'event_type', x -> 'event_data', x ->> 'laag_id',
        (x ->> 'idempotentie')::uuid, x -> 'antwoord') a;
      RETURN QUERY SELECT i, v_ok, v_saldo, NULL::text, v_webhook;
    EXCEPTION WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::boolean, NULL::integer, SQLERRM, v_webhook;
    END;
  END LOOP;
END $$;
