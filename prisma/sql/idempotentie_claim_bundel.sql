-- The entry point of src/domain/idempotentie/idempotentie.ts: the claims of concurrent requests in one
-- statement, each answered as idempotentie_claim answers it alone, in a subtransaction of its own so a
-- failing claim fails alone. A claim with `kijk` (an MCP tool call after its settlement found an identical
-- one, or refused for its balance) only looks, all of them in one query: the stored answer (herhaling),
-- a live claim (bezig, or ander_verzoek for another body), else vrij; an MCP answer is stored at the
-- settlement (idempotentie_vastleggen). Rows carry their claim's place (r_nr).
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
    EXCEPTION WHEN read_only_sql_transaction OR insufficient_resources THEN
      RAISE; -- a standby after a failover, a full disk: an outage (503), not this item's failure
    WHEN OTHERS THEN
      RETURN QUERY SELECT i, NULL::text, NULL::uuid, NULL::integer, NULL::jsonb, NULL::integer, SQLERRM;
    END;
  END LOOP;
END $function$;
