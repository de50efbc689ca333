-- The entry point of src/domain/billing/afrekenen.ts: the charges of several accounts in one statement,
-- one group per account (sorted by account id by the caller, so processes lock account rows in one
-- order), each group in a subtransaction of its own so a failing group fails alone. p_verstuurd: when the
-- application sent the statement; one that runs past that plus statement_timeout rolls back (57014).
CREATE OR REPLACE FUNCTION public.afrekenen_bundels(p_groepen jsonb, p_verstuurd timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(r_groep integer, r_nr integer, r_ok boolean, r_saldo integer, r_fout text, r_webhook boolean, r_limiet boolean, r_herhaald boolean)
 LANGUAGE plpgsql
AS $function$
DECLARE
  i INTEGER;
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_groepen) - 1 LOOP
    BEGIN
      RETURN QUERY SELECT i, b.r_nr, b.r_ok, b.r_saldo, b.r_fout, b.r_webhook, b.r_limiet, b.r_herhaald FROM afrekenen_bundel(p_groepen -> i) b;
    EXCEPTION WHEN read_only_sql_transaction OR insufficient_resources THEN
      RAISE; -- a standby after a failover, a full disk: an outage (503), not this item's failure
    WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::integer, NULL::boolean, NULL::integer, SQLERRM, false, false, false;
    END;
  END LOOP;
  -- The client gives up a little after statement_timeout and answers 503, nothing charged: a statement that
  -- waited that long in a stalled server's socket (statement_timeout not yet running) must not commit.
  IF p_verstuurd IS NOT NULL AND current_setting('statement_timeout') <> '0'
     AND clock_timestamp() > p_verstuurd + current_setting('statement_timeout')::interval THEN
    RAISE EXCEPTION 'afrekening verstuurd om % liep na de leestijd van de client af: teruggedraaid', p_verstuurd USING ERRCODE = '57014';
  END IF;
END $function$;
