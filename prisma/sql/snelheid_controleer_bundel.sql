-- The rate-limit checks of several keys in one statement (src/domain/limits/snelheid.ts), each key's
-- group in a subtransaction of its own.
CREATE OR REPLACE FUNCTION public.snelheid_controleer_bundel(p_groepen jsonb)
 RETURNS TABLE(r_groep integer, r_geldig boolean, r_toegelaten integer, r_emmer text, r_aantal integer, r_oudste_ms bigint, r_saldo integer, r_fout text)
 LANGUAGE plpgsql
AS $function$
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
    EXCEPTION WHEN read_only_sql_transaction OR insufficient_resources THEN
      RAISE; -- a standby after a failover, a full disk: an outage (503), not this item's failure
    WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::boolean, NULL::integer, NULL::text, NULL::integer, NULL::bigint, NULL::integer, SQLERRM;
    END;
  END LOOP;
END $function$;
