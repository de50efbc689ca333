-- The entry point of src/domain/billing/afrekenen.ts: the charges of several accounts in one statement,
-- one group per account (sorted by account id by the caller, so processes lock account rows in one
-- order), each group in a subtransaction of its own so a failing group fails alone.
CREATE OR REPLACE FUNCTION public.afrekenen_bundels(p_groepen jsonb)
 RETURNS TABLE(r_groep integer, r_nr integer, r_ok boolean, r_saldo integer, r_fout text, r_webhook boolean, r_limiet boolean, r_herhaald boolean)
 LANGUAGE plpgsql
AS $function$
DECLARE
  i INTEGER;
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_groepen) - 1 LOOP
    BEGIN
      RETURN QUERY SELECT i, b.r_nr, b.r_ok, b.r_saldo, b.r_fout, b.r_webhook, b.r_limiet, b.r_herhaald FROM afrekenen_bundel(p_groepen -> i) b;
    EXCEPTION WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::integer, NULL::boolean, NULL::integer, SQLERRM, false, false, false;
    END;
  END LOOP;
END $function$;
