-- Claim (key, scope, sleutel) for an idempotent request in one statement, and read the account's balance
-- with it so the 402 check needs no round trip of its own. Answers nieuw (with the claim id), bezig,
-- ander_verzoek (same key, other body) or herhaling (the stored answer). The claim keeps its request's
-- deadline (p_nu + p_verlaten_na_ms, the request's time); a claim still "bezig" past it belongs to a dead
-- request and is taken over.
CREATE OR REPLACE FUNCTION public.idempotentie_claim(p_key uuid, p_scope text, p_sleutel text, p_hash text, p_nu timestamp with time zone, p_verloopt timestamp with time zone, p_verlaten_na_ms integer, p_account uuid)
 RETURNS TABLE(r_soort text, r_id uuid, r_status integer, r_antwoord jsonb, r_saldo integer)
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_id UUID;
  v_saldo INTEGER;
  r idempotentie%ROWTYPE;
  poging INTEGER;
BEGIN
  SELECT a.credits INTO v_saldo FROM account a WHERE a.id = p_account;
  FOR poging IN 1 .. 5 LOOP
    INSERT INTO idempotentie (id, key_id, scope, sleutel, verzoek_hash, toestand, aangemaakt_op, verloopt_op, bezig_tot)
    VALUES (uuid_v7(), p_key, p_scope, p_sleutel, p_hash, 'bezig', p_nu, p_verloopt, p_nu + make_interval(secs => p_verlaten_na_ms / 1000.0))
    ON CONFLICT (key_id, scope, sleutel) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN
      RETURN QUERY SELECT 'nieuw'::text, v_id, NULL::integer, NULL::jsonb, v_saldo;
      RETURN;
    END IF;
    SELECT * INTO r FROM idempotentie i WHERE i.key_id = p_key AND i.scope = p_scope AND i.sleutel = p_sleutel;
    IF NOT FOUND THEN CONTINUE; END IF;
    IF r.verloopt_op <= p_nu OR (r.toestand = 'bezig' AND r.bezig_tot <= p_nu) THEN
      -- The condition again: a charge may have settled the claim while this waited for its row lock.
      DELETE FROM idempotentie i WHERE i.id = r.id AND i.aangemaakt_op = r.aangemaakt_op
        AND (i.verloopt_op <= p_nu OR (i.toestand = 'bezig' AND i.bezig_tot <= p_nu));
      CONTINUE;
    END IF;
    IF r.verzoek_hash <> p_hash THEN
      RETURN QUERY SELECT 'ander_verzoek'::text, NULL::uuid, NULL::integer, NULL::jsonb, v_saldo;
    ELSIF r.toestand = 'bezig' THEN
      RETURN QUERY SELECT 'bezig'::text, NULL::uuid, NULL::integer, NULL::jsonb, v_saldo;
    ELSE
      RETURN QUERY SELECT 'herhaling'::text, r.id, coalesce(r.status, 200), r.antwoord, v_saldo;
    END IF;
    RETURN;
  END LOOP;
  RETURN QUERY SELECT 'bezig'::text, NULL::uuid, NULL::integer, NULL::jsonb, v_saldo;
END $function$;
