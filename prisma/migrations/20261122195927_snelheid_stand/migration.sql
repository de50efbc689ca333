-- DropTable
DROP TABLE "snelheidslimiet";

-- CreateTable
CREATE TABLE "snelheid_stand" (
    "key_id" UUID NOT NULL,
    "emmer" TEXT NOT NULL,
    "seconde" BIGINT NOT NULL,
    "tellingen" INTEGER[],

    CONSTRAINT "snelheid_stand_pkey" PRIMARY KEY ("key_id","emmer")
);

-- AddForeignKey
ALTER TABLE "snelheid_stand" ADD CONSTRAINT "snelheid_stand_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_sleutel"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Rate-limit state is not worth a WAL flush per request: UNLOGGED (no WAL, so a check's commit does not
-- wait for the disk while it holds the bucket row). After a crash of PostgreSQL the table comes back
-- empty, i.e. every key starts a fresh window once; nothing else depends on it.
ALTER TABLE "snelheid_stand" SET UNLOGGED;

-- Rate limits in one statement (src/domain/limits/snelheid.ts). A sliding window of 60 one-second
-- slots per (key, bucket): the row holds the accepted requests per second; a check clears the slots
-- that left the window, counts the rest, and adds one to the current second only when every bucket of
-- the request allows it (a refused request spends no quota). Row locks in bucket-name order are held
-- for this one statement only: no advisory lock, no application round trip while a lock is held.

-- The slots of the seconds after `van` up to and including `tot` are empty (they have not been written since).
CREATE FUNCTION "snelheid_schuif"(t INTEGER[], van BIGINT, tot BIGINT) RETURNS INTEGER[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  j INTEGER;
BEGIN
  IF t IS NULL OR tot - van >= 60 THEN
    RETURN array_fill(0, ARRAY[60]);
  END IF;
  -- (Integer FOR loops count in int4: loop over the offset, not over the epoch second.)
  FOR j IN 1 .. (tot - van)::int LOOP
    t[((van + j) % 60)::int + 1] := 0;
  END LOOP;
  RETURN t;
END $$;

-- One row per bucket: whether the key is still valid (not revoked, not expired: checked here so a
-- revocation by any process is seen at once), whether the request is allowed, the count in the window
-- before this request, the start (ms) of the oldest second that still counts, and the account's
-- balance (so the 402 check and whoami need no round trip of their own). p_emmers sorted.
CREATE FUNCTION "snelheid_controleer"(p_key UUID, p_emmers TEXT[], p_limieten INTEGER[], p_nu_ms BIGINT)
RETURNS TABLE (r_geldig BOOLEAN, r_toegestaan BOOLEAN, r_emmer TEXT, r_aantal INTEGER, r_oudste_ms BIGINT, r_saldo INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  nu_s BIGINT := floor(p_nu_ms / 1000.0)::bigint;
  v_geldig BOOLEAN;
  v_saldo INTEGER;
  v_sec BIGINT;
  v_t INTEGER[];
  v_eff BIGINT;
  v_aantal INTEGER[] := '{}';
  v_oudste BIGINT[] := '{}';
  v_ok BOOLEAN := true;
  v_som INTEGER;
  v_old BIGINT;
  i INTEGER;
  o INTEGER;
  k BIGINT;
BEGIN
  SELECT s.ingetrokken_op IS NULL AND s.verloopt_op > to_timestamp(p_nu_ms / 1000.0), a.credits INTO v_geldig, v_saldo
  FROM api_sleutel s JOIN account a ON a.id = s.account_id WHERE s.id = p_key;
  IF v_geldig IS DISTINCT FROM true THEN
    RETURN QUERY SELECT false, false, NULL::text, 0, NULL::bigint, NULL::integer;
    RETURN;
  END IF;
  FOR i IN 1 .. array_length(p_emmers, 1) LOOP
    SELECT st.seconde, st.tellingen INTO v_sec, v_t FROM snelheid_stand st
    WHERE st.key_id = p_key AND st.emmer = p_emmers[i] FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO snelheid_stand (key_id, emmer, seconde, tellingen)
      VALUES (p_key, p_emmers[i], nu_s, array_fill(0, ARRAY[60])) ON CONFLICT DO NOTHING;
      SELECT st.seconde, st.tellingen INTO v_sec, v_t FROM snelheid_stand st
      WHERE st.key_id = p_key AND st.emmer = p_emmers[i] FOR UPDATE;
    END IF;
    -- Another process's clock may be a little ahead: never move the window back.
    v_eff := greatest(v_sec, nu_s);
    v_t := snelheid_schuif(v_t, v_sec, v_eff);
    v_som := 0;
    v_old := NULL;
    FOR o IN 0 .. 59 LOOP
      k := v_eff - 59 + o;
      IF v_t[(k % 60)::int + 1] > 0 THEN
        IF v_old IS NULL THEN v_old := k * 1000; END IF;
        v_som := v_som + v_t[(k % 60)::int + 1];
      END IF;
    END LOOP;
    v_aantal := v_aantal || v_som;
    v_oudste := v_oudste || v_old;
    IF v_som >= p_limieten[i] THEN v_ok := false; END IF;
  END LOOP;
  IF v_ok THEN
    UPDATE snelheid_stand st
    SET tellingen = (
          SELECT array_agg(CASE WHEN j = (greatest(st.seconde, nu_s) % 60)::int + 1 THEN x + 1 ELSE x END ORDER BY j)
          FROM unnest(snelheid_schuif(st.tellingen, st.seconde, greatest(st.seconde, nu_s))) WITH ORDINALITY AS u(x, j)
        ),
        seconde = greatest(st.seconde, nu_s)
    WHERE st.key_id = p_key AND st.emmer = ANY (p_emmers);
  END IF;
  RETURN QUERY SELECT true, v_ok, e.emmer, v_aantal[e.n::int], v_oudste[e.n::int], v_saldo
  FROM unnest(p_emmers) WITH ORDINALITY AS e(emmer, n);
END $$;

-- Webhook outbox (src/domain/webhooks/gebeurtenissen.ts): the event and one delivery per active endpoint
-- of the account that subscribes to its type; no endpoint, no row. The payload is the Standard Webhooks
-- body {type, timestamp, data}. Returns whether it was written.
CREATE FUNCTION "webhook_schrijf"(p_account UUID, p_id TEXT, p_type TEXT, p_tijdstempel TEXT, p_data JSONB, p_nu TIMESTAMPTZ)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook w WHERE w.account_id = p_account AND w.actief AND p_type = ANY (w.events)) THEN
    RETURN false;
  END IF;
  INSERT INTO webhook_gebeurtenis (id, account_id, type, payload, aangemaakt_op) VALUES (p_id, p_account, p_type, jsonb_build_object('type', p_type, 'timestamp', p_tijdstempel, 'data', p_data), p_nu);
  INSERT INTO webhook_aflevering (id, event_id, endpoint_id, volgende_poging)
  SELECT gen_random_uuid(), p_id, w.id, p_nu FROM webhook w WHERE w.account_id = p_account AND w.actief AND p_type = ANY (w.events);
  RETURN true;
END $$;

-- Settling one lookup in one statement (src/domain/billing/afrekenen.ts): the conditional debit (never
-- below zero, also across processes: the UPDATE matches only while enough credits remain), the usage
-- record, the ledger row, the webhook event(s) and the stored idempotent answer; all of it or nothing.
-- r_ok false: not enough credits (r_saldo is the balance then).
CREATE FUNCTION "afrekenen"(
  p_verzoek UUID, p_account UUID, p_key UUID, p_kanaal TEXT, p_voorziening TEXT, p_status INTEGER, p_credits INTEGER,
  p_eenheid_cent INTEGER, p_adres TEXT, p_nu TIMESTAMPTZ, p_tijdstempel TEXT,
  p_event_id TEXT, p_event_type TEXT, p_event_data JSONB, p_laag_id TEXT,
  p_idempotentie UUID, p_antwoord JSONB)
RETURNS TABLE (r_ok BOOLEAN, r_saldo INTEGER) LANGUAGE plpgsql AS $$
DECLARE
  v_saldo INTEGER;
  v_drempel INTEGER;
BEGIN
  IF p_credits > 0 THEN
    UPDATE account a SET credits = a.credits - p_credits
    WHERE a.id = p_account AND a.credits >= p_credits
    RETURNING a.credits, a.drempel_credits INTO v_saldo, v_drempel;
    IF NOT FOUND THEN
      SELECT a.credits INTO v_saldo FROM account a WHERE a.id = p_account;
      RETURN QUERY SELECT false, coalesce(v_saldo, 0);
      RETURN;
    END IF;
  END IF;
  INSERT INTO verbruik (id, account_id, key_id, kanaal, voorziening, status, credits, gefactureerd_cent, adres, aangemaakt_op)
  VALUES (p_verzoek, p_account, p_key, p_kanaal, p_voorziening, p_status, p_credits, p_credits * p_eenheid_cent, p_adres, p_nu);
  IF p_credits > 0 THEN
    INSERT INTO grootboek (id, account_id, credits, soort, usage_id, omschrijving, aangemaakt_op)
    VALUES (gen_random_uuid(), p_account, -p_credits, 'afschrijving', p_verzoek, p_voorziening, p_nu);
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
  RETURN QUERY SELECT true, v_saldo;
END $$;

-- The idempotency claim in one statement (src/domain/idempotentie/idempotentie.ts), with the account's
-- balance in the same round trip (the 402 check that follows needs it). r_soort: nieuw | bezig |
-- ander_verzoek | herhaling. An expired or abandoned record is deleted (that exact row) and claimed anew.
CREATE FUNCTION "idempotentie_claim"(
  p_key UUID, p_scope TEXT, p_sleutel TEXT, p_hash TEXT, p_nu TIMESTAMPTZ, p_verloopt TIMESTAMPTZ, p_verlaten_na_ms INTEGER, p_account UUID)
RETURNS TABLE (r_soort TEXT, r_id UUID, r_status INTEGER, r_antwoord JSONB, r_saldo INTEGER) LANGUAGE plpgsql AS $$
DECLARE
  v_id UUID;
  v_saldo INTEGER;
  r idempotentie%ROWTYPE;
  poging INTEGER;
BEGIN
  SELECT a.credits INTO v_saldo FROM account a WHERE a.id = p_account;
  FOR poging IN 1 .. 5 LOOP
    INSERT INTO idempotentie (id, key_id, scope, sleutel, verzoek_hash, toestand, aangemaakt_op, verloopt_op)
    VALUES (gen_random_uuid(), p_key, p_scope, p_sleutel, p_hash, 'bezig', p_nu, p_verloopt)
    ON CONFLICT (key_id, scope, sleutel) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NOT NULL THEN
      RETURN QUERY SELECT 'nieuw'::text, v_id, NULL::integer, NULL::jsonb, v_saldo;
      RETURN;
    END IF;
    SELECT * INTO r FROM idempotentie i WHERE i.key_id = p_key AND i.scope = p_scope AND i.sleutel = p_sleutel;
    IF NOT FOUND THEN CONTINUE; END IF;
    IF r.verloopt_op <= p_nu OR (r.toestand = 'bezig' AND r.aangemaakt_op + make_interval(secs => p_verlaten_na_ms / 1000.0) <= p_nu) THEN
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
END $$;
