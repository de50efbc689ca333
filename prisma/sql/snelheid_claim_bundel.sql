-- The rate-limit checks of src/domain/limits/snelheid.ts together with the idempotency claims of the
-- requests they admit, in one statement (a REST call with an Idempotency-Key claims; without this it
-- pays a second round trip). The limit rows come as snelheid_controleer_bundel
-- returns them (r_claim NULL); then one row per admitted claim (r_groep NULL), as
-- idempotentie_claim_bundel answers it. A claim names its group and its place in that group's arrival
-- order: the first r_toegelaten of a valid key's group are admitted; a refused request claims nothing.
CREATE OR REPLACE FUNCTION public.snelheid_claim_bundel(p_groepen jsonb, p_claims jsonb)
 RETURNS TABLE(r_groep integer, r_geldig boolean, r_toegelaten integer, r_emmer text, r_aantal integer, r_oudste_ms bigint, r_saldo integer, r_fout text, r_claim integer, r_soort text, r_id uuid, r_status integer, r_antwoord jsonb)
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_toegelaten INTEGER[] := array_fill(0, ARRAY[jsonb_array_length(p_groepen) + 1]);
  v_nrs INTEGER[] := '{}';
  v_toe JSONB := '[]';
  l RECORD;
  i INTEGER;
  c JSONB;
BEGIN
  FOR l IN SELECT * FROM snelheid_controleer_bundel(p_groepen) LOOP
    IF l.r_geldig THEN v_toegelaten[l.r_groep + 1] := l.r_toegelaten; END IF;
    RETURN QUERY SELECT l.r_groep, l.r_geldig, l.r_toegelaten, l.r_emmer, l.r_aantal, l.r_oudste_ms, l.r_saldo, l.r_fout,
                        NULL::integer, NULL::text, NULL::uuid, NULL::integer, NULL::jsonb;
  END LOOP;
  FOR i IN 0 .. jsonb_array_length(p_claims) - 1 LOOP
    c := p_claims -> i;
    IF (c ->> 'plek')::int < v_toegelaten[(c ->> 'groep')::int + 1] THEN
      v_nrs := v_nrs || i;
      v_toe := v_toe || jsonb_build_array(c);
    END IF;
  END LOOP;
  RETURN QUERY SELECT NULL::integer, NULL::boolean, NULL::integer, NULL::text, NULL::integer, NULL::bigint, k.r_saldo, k.r_fout,
                      v_nrs[k.r_nr + 1], k.r_soort, k.r_id, k.r_status, k.r_antwoord
    FROM idempotentie_claim_bundel(v_toe) k;
END $function$;
