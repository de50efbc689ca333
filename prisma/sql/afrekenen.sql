-- One charge, all or nothing: the conditional debit (the balance never goes below zero), the usage
-- record, the ledger row, the webhook event(s) — inzicht.voltooid / inzicht.mislukt, and saldo.laag once
-- when the balance crosses the account's threshold — and the stored idempotent answer. A refused debit
-- returns false and the balance, with r_limiet when the key's monthly cap refused it (the cap of the key
-- that replaced it, after a rotation: limietsleutel); a closed account false without a balance. Used item
-- by item by afrekenen_per_item.
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
