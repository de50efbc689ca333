CREATE OR REPLACE FUNCTION public.idempotentie_claim_bundel(p_claims jsonb)
 RETURNS TABLE(r_nr integer, r_soort text, r_id uuid, r_status integer, r_antwoord jsonb, r_saldo integer, r_fout text)
 LANGUAGE plpgsql
AS $function$
DECLARE
  i INTEGER;
  c JSONB;
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_claims) - 1 LOOP
    c := p_claims -> i;
    BEGIN
      RETURN QUERY SELECT i, k.r_soort, k.r_id, k.r_status, k.r_antwoord, k.r_saldo, NULL::text
        FROM idempotentie_claim((c ->> 'key')::uuid, c ->> 'scope', c ->> 'sleutel', c ->> 'hash', (c ->> 'nu')::timestamptz,
                                (c ->> 'verloopt')::timestamptz, (c ->> 'termijn')::integer, (c ->> 'account')::uuid) k;
    EXCEPTION WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::text, NULL::uuid, NULL::integer, NULL::jsonb, NULL::integer, SQLERRM;
    END;
  END LOOP;
END $function$;
