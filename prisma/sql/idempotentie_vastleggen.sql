-- Stores the answer of an idempotent call that held no claim (MCP) at its settlement, in the settling
-- transaction: the new record's id, or NULL when a live record of the same (key, scope, sleutel) exists,
-- i.e. an identical call settled first; the caller then charges nothing and replays that answer. An
-- expired record, or a claim abandoned by a dead request, gives way. Under the account's row lock. Kept
-- under the key that replaced p_key if it was rotated while the call ran (limietsleutel), where the rotation
-- moved the key's other records.
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
