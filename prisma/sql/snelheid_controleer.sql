-- The rate limit of one key over its buckets: a sliding window of 60 one-second slots per bucket
-- (snelheid_schuif), p_aantal requests admitted while every bucket has room. Also answers whether the key
-- is still valid and the account's balance, so a request reads neither again.
CREATE OR REPLACE FUNCTION public.snelheid_controleer(p_key uuid, p_emmers text[], p_limieten integer[], p_nu_ms bigint, p_aantal integer)
 RETURNS TABLE(r_geldig boolean, r_toegelaten integer, r_emmer text, r_aantal integer, r_oudste_ms bigint, r_saldo integer)
 LANGUAGE plpgsql
AS $function$
DECLARE
  nu_s BIGINT := floor(p_nu_ms / 1000.0)::bigint;
  v_geldig BOOLEAN;
  v_saldo INTEGER;
  v_sec BIGINT;
  v_t INTEGER[];
  v_aantal INTEGER[] := '{}';
  v_oudste BIGINT[] := '{}';
  v_toegelaten INTEGER := p_aantal;
  v_som INTEGER;
  v_old BIGINT;
  i INTEGER;
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
    IF nu_s > v_sec THEN
      v_t := snelheid_schuif(v_t, v_sec, nu_s);
      UPDATE snelheid_stand st SET tellingen = v_t, seconde = nu_s WHERE st.key_id = p_key AND st.emmer = p_emmers[i];
      v_sec := nu_s;
    END IF;
    SELECT coalesce(sum(u.x), 0)::int, min(v_sec - ((v_sec - (u.j - 1)) % 60 + 60) % 60) FILTER (WHERE u.x > 0) * 1000
    INTO v_som, v_old FROM unnest(v_t) WITH ORDINALITY AS u(x, j);
    v_aantal := v_aantal || v_som;
    v_oudste := v_oudste || v_old;
    v_toegelaten := least(v_toegelaten, greatest(0, p_limieten[i] - v_som));
  END LOOP;
  IF v_toegelaten > 0 THEN
    UPDATE snelheid_stand st SET tellingen[(st.seconde % 60)::int + 1] = st.tellingen[(st.seconde % 60)::int + 1] + v_toegelaten
    WHERE st.key_id = p_key AND st.emmer = ANY (p_emmers);
  END IF;
  RETURN QUERY SELECT true, v_toegelaten, e.emmer, v_aantal[e.n::int], v_oudste[e.n::int], v_saldo
  FROM unnest(p_emmers) WITH ORDINALITY AS e(emmer, n) ORDER BY e.n;
END $function$;
