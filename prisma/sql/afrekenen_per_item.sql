-- Fallback of afrekenen_bundel: every item through afrekenen in a subtransaction of its own, so an
-- item the database refuses fails alone and reports its error. r_herhaald: an identical call settled
-- first (idempotentie_vastleggen), or a retry took over the REST claim; nothing is charged.
CREATE OR REPLACE FUNCTION public.afrekenen_per_item(p_items jsonb)
 RETURNS TABLE(r_nr integer, r_ok boolean, r_saldo integer, r_fout text, r_webhook boolean, r_limiet boolean, r_herhaald boolean)
 LANGUAGE plpgsql
AS $function$
DECLARE
  x JSONB;
  i INTEGER;
  v_ok BOOLEAN;
  v_saldo INTEGER;
  v_limiet BOOLEAN;
  v_vast UUID;
  v_eigen BOOLEAN;
  v_webhook BOOLEAN := EXISTS (SELECT 1 FROM webhook w WHERE w.account_id = (p_items -> 0 ->> 'account')::uuid AND w.actief);
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_items) - 1 LOOP
    x := p_items -> i;
    BEGIN
      -- The account's row lock before the stored answer, as afrekenen_bundel takes them: the other order deadlocks.
      IF x ? 'vastleggen' OR x ? 'idempotentie' THEN PERFORM 1 FROM account a WHERE a.id = (x ->> 'account')::uuid FOR UPDATE; END IF;
      v_vast := CASE WHEN x ? 'vastleggen' THEN idempotentie_vastleggen((x ->> 'sleutel')::uuid, x -> 'vastleggen', (x ->> 'status')::int, x -> 'antwoord', (x ->> 'nu')::timestamptz) END;
      -- The REST claim still this request's (afrekenen_bundel says why).
      v_eigen := true;
      IF x ? 'idempotentie' THEN
        PERFORM 1 FROM idempotentie d WHERE d.id = (x ->> 'idempotentie')::uuid AND d.toestand = 'bezig' FOR UPDATE;
        v_eigen := FOUND;
      END IF;
      IF (x ? 'vastleggen' AND v_vast IS NULL) OR NOT v_eigen THEN
        RETURN QUERY SELECT i, false, NULL::integer, NULL::text, v_webhook, false, true;
      ELSE
        SELECT a.r_ok, a.r_saldo, a.r_limiet INTO v_ok, v_saldo, v_limiet FROM afrekenen(
          (x ->> 'verzoek')::uuid, (x ->> 'account')::uuid, (x ->> 'sleutel')::uuid, x ->> 'kanaal', x ->> 'voorziening',
          (x ->> 'status')::int, (x ->> 'credits')::int, (x ->> 'eenheid_cent')::int, x ->> 'adres', (x ->> 'nu')::timestamptz,
          x ->> 'tijdstempel', x ->> 'event_id', x ->> 'event_type', x -> 'event_data', x ->> 'laag_id',
          (x ->> 'idempotentie')::uuid, x -> 'antwoord') a;
        -- An unpaid call keeps no stored answer.
        IF v_vast IS NOT NULL AND NOT v_ok THEN DELETE FROM idempotentie d WHERE d.id = v_vast; END IF;
        RETURN QUERY SELECT i, v_ok, v_saldo, NULL::text, v_webhook, v_limiet, false;
      END IF;
    EXCEPTION WHEN read_only_sql_transaction OR insufficient_resources THEN
      RAISE; -- a standby after a failover, a full disk: an outage (503), not this item's failure
    WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::boolean, NULL::integer, SQLERRM, v_webhook, false, false;
    END;
  END LOOP;
END $function$;
