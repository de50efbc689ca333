-- Claims from before bezig_tot existed (20261125202921) get the deadline they were held to (60 s after
-- they were made), so the functions below and the cleanup read bezig_tot alone.
UPDATE idempotentie SET bezig_tot = aangemaakt_op + interval '60 seconds' WHERE toestand = 'bezig' AND bezig_tot IS NULL;

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
    VALUES (gen_random_uuid(), p_key, p_scope, p_sleutel, p_hash, 'bezig', p_nu, p_verloopt, p_nu + make_interval(secs => p_verlaten_na_ms / 1000.0))
    ON CONFLICT (key_id, scope, sleutel) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN
      RETURN QUERY SELECT 'nieuw'::text, v_id, NULL::integer, NULL::jsonb, v_saldo;
      RETURN;
    END IF;
    SELECT * INTO r FROM idempotentie i WHERE i.key_id = p_key AND i.scope = p_scope AND i.sleutel = p_sleutel;
    IF NOT FOUND THEN CONTINUE; END IF;
    IF r.verloopt_op <= p_nu OR (r.toestand = 'bezig' AND r.bezig_tot <= p_nu) THEN
      DELETE FROM idempotentie i WHERE i.id = r.id AND i.aangemaakt_op = r.aangemaakt_op;
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

CREATE OR REPLACE FUNCTION public.idempotentie_claim_bundel(p_claims jsonb)
 RETURNS TABLE(r_nr integer, r_soort text, r_id uuid, r_status integer, r_antwoord jsonb, r_saldo integer, r_fout text)
 LANGUAGE plpgsql
AS $function$
DECLARE
  i INTEGER;
  c JSONB;
BEGIN
  RETURN QUERY
    SELECT (e.n - 1)::int,
           CASE WHEN r.id IS NULL OR (r.toestand = 'bezig' AND r.bezig_tot <= (e.c ->> 'nu')::timestamptz) THEN 'vrij'
                WHEN r.verzoek_hash <> e.c ->> 'hash' THEN 'ander_verzoek'
                WHEN r.toestand = 'bezig' THEN 'bezig'
                ELSE 'herhaling' END,
           CASE WHEN r.toestand = 'klaar' AND r.verzoek_hash = e.c ->> 'hash' THEN r.id END,
           CASE WHEN r.toestand = 'klaar' AND r.verzoek_hash = e.c ->> 'hash' THEN coalesce(r.status, 200) END,
           CASE WHEN r.toestand = 'klaar' AND r.verzoek_hash = e.c ->> 'hash' THEN r.antwoord END,
           s.credits, NULL::text
    FROM jsonb_array_elements(p_claims) WITH ORDINALITY AS e(c, n)
    LEFT JOIN LATERAL (SELECT a.credits FROM account a WHERE a.id = (e.c ->> 'account')::uuid OFFSET 0) s ON true
    LEFT JOIN LATERAL (
      SELECT d.id, d.toestand, d.bezig_tot, d.verzoek_hash, d.status, d.antwoord FROM idempotentie d
      WHERE d.key_id = (e.c ->> 'key')::uuid AND d.scope = e.c ->> 'scope' AND d.sleutel = e.c ->> 'sleutel' AND d.verloopt_op > (e.c ->> 'nu')::timestamptz
      OFFSET 0) r ON true
    WHERE (e.c ->> 'kijk')::boolean;
  FOR i IN 0 .. jsonb_array_length(p_claims) - 1 LOOP
    c := p_claims -> i;
    CONTINUE WHEN (c ->> 'kijk')::boolean;
    BEGIN
      RETURN QUERY SELECT i, k.r_soort, k.r_id, k.r_status, k.r_antwoord, k.r_saldo, NULL::text
        FROM idempotentie_claim((c ->> 'key')::uuid, c ->> 'scope', c ->> 'sleutel', c ->> 'hash', (c ->> 'nu')::timestamptz,
                                (c ->> 'verloopt')::timestamptz, (c ->> 'termijn')::integer, (c ->> 'account')::uuid) k;
    EXCEPTION WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::text, NULL::uuid, NULL::integer, NULL::jsonb, NULL::integer, SQLERRM;
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
      AND (i.verloopt_op <= p_nu OR (i.toestand = 'bezig' AND i.bezig_tot <= p_nu));
    -- Nothing gave way: a live record is in the way, unless the cleanup removed it meanwhile (then again).
    IF NOT FOUND AND EXISTS (SELECT 1 FROM idempotentie i WHERE i.key_id = p_key AND i.scope = p_v ->> 'scope' AND i.sleutel = p_v ->> 'sleutel') THEN
      RETURN NULL;
    END IF;
  END LOOP;
  RETURN NULL;
END $function$;
