-- A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Keys made in time order go
-- to the right edge of their B-tree, so the indexes of the tables written per call (ledger, usage,
-- idempotency, webhook deliveries) stay small in cache however large the tables grow (random version 4
-- keys touch a random leaf page on every insert).
CREATE OR REPLACE FUNCTION public.uuid_v7()
 RETURNS uuid
 LANGUAGE sql
 PARALLEL SAFE
AS $function$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$function$;
