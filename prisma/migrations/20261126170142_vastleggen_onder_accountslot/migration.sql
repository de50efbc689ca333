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
  v_webhook BOOLEAN := EXISTS (SELECT 1 FROM webhook w WHERE w.account_id = (p_items -> 0 ->> 'account')::uuid AND w.actief);
BEGIN
  FOR i IN 0 .. jsonb_array_length(p_items) - 1 LOOP
    x := p_items -> i;
    BEGIN
      -- The account's row lock before the stored answer, as afrekenen_bundel takes them: the other order deadlocks.
      IF x ? 'vastleggen' THEN PERFORM 1 FROM account a WHERE a.id = (x ->> 'account')::uuid FOR UPDATE; END IF;
      v_vast := CASE WHEN x ? 'vastleggen' THEN idempotentie_vastleggen((x ->> 'sleutel')::uuid, x -> 'vastleggen', (x ->> 'status')::int, x -> 'antwoord', (x ->> 'nu')::timestamptz) END;
      IF x ? 'vastleggen' AND v_vast IS NULL THEN
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
    EXCEPTION WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::boolean, NULL::integer, SQLERRM, v_webhook, false, false;
    END;
  END LOOP;
END $function$;

CREATE OR REPLACE FUNCTION public.idempotentie_vastleggen(p_key uuid, p_v jsonb, p_status integer, p_antwoord jsonb, p_nu timestamp with time zone)
 RETURNS uuid
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_id UUID;
  poging INTEGER;
BEGIN
  FOR poging IN 1 .. 3 LOOP
    INSERT INTO idempotentie (id, key_id, scope, sleutel, verzoek_hash, toestand, status, antwoord, aangemaakt_op, verloopt_op)
    VALUES (gen_random_uuid(), p_key, p_v ->> 'scope', p_v ->> 'sleutel', p_v ->> 'hash', 'klaar', p_status, p_antwoord, p_nu, (p_v ->> 'verloopt')::timestamptz)
    ON CONFLICT (key_id, scope, sleutel) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN RETURN v_id; END IF;
    DELETE FROM idempotentie i WHERE i.key_id = p_key AND i.scope = p_v ->> 'scope' AND i.sleutel = p_v ->> 'sleutel'
      AND (i.verloopt_op <= p_nu OR (i.toestand = 'bezig' AND coalesce(i.bezig_tot, i.aangemaakt_op + interval '60 seconds') <= p_nu));
    -- Nothing gave way: a live record is in the way, unless the cleanup removed it meanwhile (then again).
    IF NOT FOUND AND EXISTS (SELECT 1 FROM idempotentie i WHERE i.key_id = p_key AND i.scope = p_v ->> 'scope' AND i.sleutel = p_v ->> 'sleutel') THEN
      RETURN NULL;
    END IF;
  END LOOP;
  RETURN NULL;
END $function$;
