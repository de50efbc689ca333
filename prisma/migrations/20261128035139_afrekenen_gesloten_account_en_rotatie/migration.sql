CREATE OR REPLACE FUNCTION public.afrekenen(p_verzoek uuid, p_account uuid, p_key uuid, p_kanaal text, p_voorziening text, p_status integer, p_credits integer, p_eenheid_cent integer, p_adres text, p_nu timestamp with time zone, p_tijdstempel text, p_event_id text, p_event_type text, p_event_data jsonb, p_laag_id text, p_idempotentie uuid, p_antwoord jsonb)
 RETURNS TABLE(r_ok boolean, r_saldo integer, r_limiet boolean)
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_saldo INTEGER;
  v_drempel INTEGER;
  v_maand TEXT := to_char(p_nu AT TIME ZONE 'Europe/Amsterdam', 'YYYY-MM');
  v_limietsleutel UUID;
  v_verbruikt INTEGER;
  v_limiet INTEGER;
BEGIN
  -- The key's monthly cap and a closed account, read under the account's row lock like every charge of the key.
  IF p_credits > 0 THEN PERFORM 1 FROM account a WHERE a.id = p_account FOR UPDATE; END IF;
  IF EXISTS (SELECT 1 FROM account a WHERE a.id = p_account AND a.gesloten_op IS NOT NULL) THEN
    RETURN QUERY SELECT false, NULL::integer, false;
    RETURN;
  END IF;
  IF p_credits > 0 THEN
    v_limietsleutel := limietsleutel(p_key);
    SELECT s.maandlimiet_credits, maandverbruik(s, v_maand) INTO v_limiet, v_verbruikt FROM api_sleutel s WHERE s.id = v_limietsleutel;
    IF v_limiet IS NOT NULL AND v_verbruikt + p_credits > v_limiet THEN
      SELECT a.credits INTO v_saldo FROM account a WHERE a.id = p_account;
      RETURN QUERY SELECT false, coalesce(v_saldo, 0), true;
      RETURN;
    END IF;
    UPDATE account a SET credits = a.credits - p_credits
    WHERE a.id = p_account AND a.credits >= p_credits
    RETURNING a.credits, a.drempel_credits INTO v_saldo, v_drempel;
    IF NOT FOUND THEN
      SELECT a.credits INTO v_saldo FROM account a WHERE a.id = p_account;
      RETURN QUERY SELECT false, coalesce(v_saldo, 0), false;
      RETURN;
    END IF;
    PERFORM maandverbruik_zet(v_limietsleutel, v_maand, v_verbruikt + p_credits);
  END IF;
  INSERT INTO verbruik (id, account_id, key_id, kanaal, voorziening, status, credits, gefactureerd_cent, adres, aangemaakt_op)
  VALUES (p_verzoek, p_account, p_key, p_kanaal, p_voorziening, p_status, p_credits, p_credits * p_eenheid_cent, p_adres, p_nu);
  IF p_credits > 0 THEN
    INSERT INTO grootboek (id, account_id, credits, soort, usage_id, omschrijving, aangemaakt_op)
    VALUES (uuid_v7(), p_account, -p_credits, 'afschrijving', p_verzoek, p_voorziening, p_nu);
  END IF;
  PERFORM webhook_schrijf(p_account, p_event_id, p_event_type, p_tijdstempel, p_event_data, p_nu);
  -- Crossing the threshold fires once, not on every later call.
  IF v_saldo IS NOT NULL AND v_saldo < v_drempel AND v_saldo + p_credits >= v_drempel THEN
    PERFORM webhook_schrijf(p_account, p_laag_id, 'saldo.laag', p_tijdstempel,
      jsonb_build_object('credits', v_saldo, 'tegoed_cent', v_saldo * p_eenheid_cent, 'drempel_credits', v_drempel), p_nu);
  END IF;
  IF p_idempotentie IS NOT NULL THEN
    UPDATE idempotentie SET toestand = 'klaar', status = p_status, antwoord = p_antwoord WHERE id = p_idempotentie;
  END IF;
  RETURN QUERY SELECT true, v_saldo, false;
END $function$;

CREATE OR REPLACE FUNCTION public.afrekenen_bundel(p_items jsonb)
 RETURNS TABLE(r_nr integer, r_ok boolean, r_saldo integer, r_fout text, r_webhook boolean, r_limiet boolean, r_herhaald boolean)
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_account UUID := (p_items -> 0 ->> 'account')::uuid;
  v_webhook BOOLEAN := EXISTS (SELECT 1 FROM webhook w WHERE w.account_id = v_account AND w.actief);
  v_n INTEGER := jsonb_array_length(p_items);
  v_credits INTEGER;
  v_begin INTEGER;
  v_drempel INTEGER;
  v_gesloten TIMESTAMPTZ;
  v_ok BOOLEAN[] := '{}';
  v_limiet BOOLEAN[] := '{}';
  v_saldo INTEGER[] := '{}';
  v_vast UUID[] := '{}';
  v_ids UUID[];
  v_namen TEXT[];
  v_herhaald BOOLEAN[] := '{}';
  v_alle TEXT[] := '{}';
  v_orig INTEGER[] := '{}';
  v_naam TEXT;
  v_maand TEXT := to_char(((p_items -> 0 ->> 'nu')::timestamptz) AT TIME ZONE 'Europe/Amsterdam', 'YYYY-MM');
  v_sleutels UUID[];
  v_limietsleutels UUID[];
  v_tellers UUID[];
  v_limieten INTEGER[];
  v_verbruikt INTEGER[];
  v_verbruikt0 INTEGER[];
  k INTEGER;
  x JSONB;
  c INTEGER;
  i INTEGER;
BEGIN
  -- The application batches per account; anything else is settled item by item.
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_items) e WHERE (e ->> 'account')::uuid IS DISTINCT FROM v_account
             OR to_char(((e ->> 'nu')::timestamptz) AT TIME ZONE 'Europe/Amsterdam', 'YYYY-MM') <> v_maand) THEN
    RETURN QUERY SELECT * FROM afrekenen_per_item(p_items);
    RETURN;
  END IF;
  BEGIN
    SELECT a.credits, a.drempel_credits, a.gesloten_op INTO v_credits, v_drempel, v_gesloten FROM account a WHERE a.id = v_account FOR UPDATE;
    -- A closed account (insight account close) is charged and recorded nothing, also for calls that were under
    -- way when it closed: refused without a balance (r_saldo NULL).
    IF v_gesloten IS NOT NULL THEN
      FOR i IN 1 .. v_n LOOP
        r_nr := i - 1; r_ok := false; r_saldo := NULL; r_fout := NULL; r_webhook := false; r_limiet := false; r_herhaald := false;
        RETURN NEXT;
      END LOOP;
      RETURN;
    END IF;
    v_begin := v_credits;
    -- Answers of calls that held no claim (MCP) are stored first, in one INSERT. An item whose identical call
    -- settled first (a live record, or an earlier item of this batch unless that one is refused) is not
    -- charged; an expired record in the way goes item by item (idempotentie_vastleggen).
    FOR i IN 0 .. v_n - 1 LOOP
      IF p_items -> i ? 'vastleggen' THEN
        WITH d AS (
          INSERT INTO idempotentie (id, key_id, scope, sleutel, verzoek_hash, toestand, status, antwoord, aangemaakt_op, verloopt_op)
          SELECT uuid_v7(), limietsleutel((e.x ->> 'sleutel')::uuid), e.x -> 'vastleggen' ->> 'scope', e.x -> 'vastleggen' ->> 'sleutel', e.x -> 'vastleggen' ->> 'hash',
                 'klaar', (e.x ->> 'status')::int, e.x -> 'antwoord', (e.x ->> 'nu')::timestamptz, (e.x -> 'vastleggen' ->> 'verloopt')::timestamptz
          FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e(x, n) WHERE e.x ? 'vastleggen' ORDER BY e.n
          ON CONFLICT (key_id, scope, sleutel) DO NOTHING
          RETURNING idempotentie.id, idempotentie.key_id, idempotentie.scope, idempotentie.sleutel)
        SELECT array_agg(d.id), array_agg(d.key_id::text || ' ' || d.scope || ' ' || d.sleutel) INTO v_ids, v_namen FROM d;
        EXIT;
      END IF;
    END LOOP;
    FOR i IN 1 .. v_n LOOP
      x := p_items -> (i - 1);
      v_naam := CASE WHEN x ? 'vastleggen' THEN limietsleutel((x ->> 'sleutel')::uuid)::text || ' ' || (x -> 'vastleggen' ->> 'scope') || ' ' || (x -> 'vastleggen' ->> 'sleutel') END;
      v_orig := v_orig || array_position(v_alle, v_naam);
      v_alle := v_alle || v_naam;
      k := array_position(v_namen, v_naam);
      IF v_naam IS NULL OR v_orig[i] IS NOT NULL THEN
        v_vast := v_vast || NULL::uuid;
      ELSIF k IS NOT NULL THEN
        v_vast := v_vast || v_ids[k];
        v_namen[k] := NULL;
      ELSE
        v_vast := v_vast || idempotentie_vastleggen((x ->> 'sleutel')::uuid, x -> 'vastleggen', (x ->> 'status')::int, x -> 'antwoord', (x ->> 'nu')::timestamptz);
      END IF;
      v_herhaald := v_herhaald || (v_naam IS NOT NULL AND v_vast[i] IS NULL);
      -- A REST claim past its deadline may be a retry's by now (this charge waited in the queue): then that
      -- retry settles and this item is not charged. Locked, so a takeover waits for this transaction.
      IF x ? 'idempotentie' THEN
        PERFORM 1 FROM idempotentie d WHERE d.id = (x ->> 'idempotentie')::uuid AND d.toestand = 'bezig' FOR UPDATE;
        v_herhaald[i] := NOT FOUND;
      END IF;
    END LOOP;
    -- The keys' monthly caps, exact under the account's row lock: every charge of a key takes it. A key
    -- rotated while its calls were in flight counts them against the key that replaced it (limietsleutel).
    SELECT array_agg(s.id), array_agg(s.vervangen_door), array_agg(s.maandlimiet_credits), array_agg(maandverbruik(s, v_maand))
      INTO v_sleutels, v_limietsleutels, v_limieten, v_verbruikt
      FROM api_sleutel s WHERE s.id IN (SELECT DISTINCT (e ->> 'sleutel')::uuid FROM jsonb_array_elements(p_items) e);
    IF coalesce(array_remove(v_limietsleutels, NULL), '{}') = '{}' THEN
      v_limietsleutels := v_sleutels;
      v_tellers := v_sleutels;
    ELSE
      SELECT array_agg(limietsleutel(u.id) ORDER BY u.n) INTO v_limietsleutels FROM unnest(v_sleutels) WITH ORDINALITY AS u(id, n);
      SELECT array_agg(s.id), array_agg(s.maandlimiet_credits), array_agg(maandverbruik(s, v_maand))
        INTO v_tellers, v_limieten, v_verbruikt FROM api_sleutel s WHERE s.id = ANY (v_limietsleutels);
    END IF;
    v_verbruikt0 := v_verbruikt;
    FOR i IN 0 .. v_n - 1 LOOP
      c := (p_items -> i ->> 'credits')::int;
      k := array_position(v_tellers, v_limietsleutels[array_position(v_sleutels, (p_items -> i ->> 'sleutel')::uuid)]);
      -- A copy of an item refused above settles as itself (refused too: the balance and cap only shrink).
      IF v_herhaald[i + 1] AND v_orig[i + 1] IS NOT NULL AND NOT v_ok[v_orig[i + 1]] AND NOT v_herhaald[v_orig[i + 1]] THEN
        v_herhaald[i + 1] := false;
      END IF;
      IF v_herhaald[i + 1] THEN
        v_ok := v_ok || false;
        v_limiet := v_limiet || false;
        v_saldo := v_saldo || NULL::integer;
      ELSIF c > 0 AND v_limieten[k] IS NOT NULL AND v_verbruikt[k] + c > v_limieten[k] THEN
        v_ok := v_ok || false;
        v_limiet := v_limiet || true;
        v_saldo := v_saldo || coalesce(v_credits, 0);
      ELSIF c > 0 THEN
        IF v_credits >= c THEN
          v_credits := v_credits - c;
          v_verbruikt[k] := v_verbruikt[k] + c;
          v_ok := v_ok || true;
          v_saldo := v_saldo || v_credits;
        ELSE
          v_ok := v_ok || false;
          v_saldo := v_saldo || coalesce(v_credits, 0);
        END IF;
        v_limiet := v_limiet || false;
      ELSE
        -- Nothing to charge: recorded without touching the balance (afrekenen reports no balance then).
        v_ok := v_ok || true;
        v_limiet := v_limiet || false;
        v_saldo := v_saldo || NULL::integer;
      END IF;
    END LOOP;
    IF v_credits IS DISTINCT FROM v_begin THEN
      UPDATE account a SET credits = v_credits WHERE a.id = v_account;
      -- Key by key: an UPDATE joined to unnest(v_tellers, ...) was planned again at every call.
      FOR j IN 1 .. coalesce(array_length(v_tellers, 1), 0) LOOP
        IF v_verbruikt[j] <> v_verbruikt0[j] THEN PERFORM maandverbruik_zet(v_tellers[j], v_maand, v_verbruikt[j]); END IF;
      END LOOP;
    END IF;
    INSERT INTO verbruik (id, account_id, key_id, kanaal, voorziening, status, credits, gefactureerd_cent, adres, aangemaakt_op)
    SELECT (e.x ->> 'verzoek')::uuid, v_account, (e.x ->> 'sleutel')::uuid, e.x ->> 'kanaal', e.x ->> 'voorziening', (e.x ->> 'status')::int,
           (e.x ->> 'credits')::int, (e.x ->> 'credits')::int * (e.x ->> 'eenheid_cent')::int, e.x ->> 'adres', (e.x ->> 'nu')::timestamptz
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e(x, n) WHERE v_ok[e.n];
    INSERT INTO grootboek (id, account_id, credits, soort, usage_id, omschrijving, aangemaakt_op)
    SELECT uuid_v7(), v_account, -(e.x ->> 'credits')::int, 'afschrijving', (e.x ->> 'verzoek')::uuid, e.x ->> 'voorziening', (e.x ->> 'nu')::timestamptz
    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS e(x, n) WHERE v_ok[e.n] AND (e.x ->> 'credits')::int > 0;
    IF v_webhook THEN
      FOR i IN 1 .. v_n LOOP
        CONTINUE WHEN NOT v_ok[i];
        x := p_items -> (i - 1);
        c := (x ->> 'credits')::int;
        PERFORM webhook_schrijf(v_account, x ->> 'event_id', x ->> 'event_type', x ->> 'tijdstempel', x -> 'event_data', (x ->> 'nu')::timestamptz);
        -- Crossing the threshold fires once, not on every later call.
        IF c > 0 AND v_saldo[i] < v_drempel AND v_saldo[i] + c >= v_drempel THEN
          PERFORM webhook_schrijf(v_account, x ->> 'laag_id', 'saldo.laag', x ->> 'tijdstempel',
            jsonb_build_object('credits', v_saldo[i], 'tegoed_cent', v_saldo[i] * (x ->> 'eenheid_cent')::int, 'drempel_credits', v_drempel),
            (x ->> 'nu')::timestamptz);
        END IF;
      END LOOP;
    END IF;
    -- Row by row, by id: joined to the items (one statement for the batch) it kept the plan made while the
    -- table was small, a scan of the whole table at every charge, until the next ANALYZE.
    FOR i IN 1 .. v_n LOOP
      x := p_items -> (i - 1);
      IF v_vast[i] IS NOT NULL AND NOT v_ok[i] THEN
        DELETE FROM idempotentie d WHERE d.id = v_vast[i];
      ELSIF v_ok[i] AND x ? 'idempotentie' THEN
        UPDATE idempotentie d SET toestand = 'klaar', status = (x ->> 'status')::int, antwoord = x -> 'antwoord' WHERE d.id = (x ->> 'idempotentie')::uuid;
      END IF;
    END LOOP;
  EXCEPTION WHEN read_only_sql_transaction OR insufficient_resources THEN
    RAISE; -- a standby after a failover, a full disk: an outage (503), not this item's failure
  WHEN OTHERS THEN
    RETURN QUERY SELECT * FROM afrekenen_per_item(p_items);
    RETURN;
  END;
  -- Row by row: a query over generate_series(1, v_n) was planned again at every call.
  FOR i IN 1 .. v_n LOOP
    r_nr := i - 1;
    r_ok := v_ok[i];
    r_saldo := v_saldo[i];
    r_fout := NULL;
    r_webhook := v_webhook;
    r_limiet := v_limiet[i];
    r_herhaald := v_herhaald[i];
    RETURN NEXT;
  END LOOP;
END $function$;

CREATE OR REPLACE FUNCTION public.idempotentie_vastleggen(p_key uuid, p_v jsonb, p_status integer, p_antwoord jsonb, p_nu timestamp with time zone)
 RETURNS uuid
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_id UUID;
  v_key UUID := limietsleutel(p_key);
  poging INTEGER;
BEGIN
  FOR poging IN 1 .. 3 LOOP
    INSERT INTO idempotentie (id, key_id, scope, sleutel, verzoek_hash, toestand, status, antwoord, aangemaakt_op, verloopt_op)
    VALUES (uuid_v7(), v_key, p_v ->> 'scope', p_v ->> 'sleutel', p_v ->> 'hash', 'klaar', p_status, p_antwoord, p_nu, (p_v ->> 'verloopt')::timestamptz)
    ON CONFLICT (key_id, scope, sleutel) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN RETURN v_id; END IF;
    DELETE FROM idempotentie i WHERE i.key_id = v_key AND i.scope = p_v ->> 'scope' AND i.sleutel = p_v ->> 'sleutel'
      AND (i.verloopt_op <= p_nu OR (i.toestand = 'bezig' AND i.bezig_tot <= p_nu));
    -- Nothing gave way: a live record is in the way, unless the cleanup removed it meanwhile (then again).
    IF NOT FOUND AND EXISTS (SELECT 1 FROM idempotentie i WHERE i.key_id = v_key AND i.scope = p_v ->> 'scope' AND i.sleutel = p_v ->> 'sleutel') THEN
      RETURN NULL;
    END IF;
  END LOOP;
  RETURN NULL;
END $function$;
