-- Write one webhook event and a delivery per active endpoint of the account subscribed to its type (an
-- endpoint registered with a test key only for a test key's event, data.test); false (nothing written) when none is.
CREATE OR REPLACE FUNCTION public.webhook_schrijf(p_account uuid, p_id text, p_type text, p_tijdstempel text, p_data jsonb, p_nu timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook w WHERE w.account_id = p_account AND w.actief AND p_type = ANY (w.events) AND (NOT w.test OR p_data ->> 'test' = 'true')) THEN
    RETURN false;
  END IF;
  INSERT INTO webhook_gebeurtenis (id, account_id, type, payload, aangemaakt_op) VALUES (p_id, p_account, p_type, jsonb_build_object('type', p_type, 'timestamp', p_tijdstempel, 'data', p_data), p_nu);
  INSERT INTO webhook_aflevering (id, event_id, endpoint_id, volgende_poging)
  SELECT uuid_v7(), p_id, w.id, p_nu FROM webhook w WHERE w.account_id = p_account AND w.actief AND p_type = ANY (w.events) AND (NOT w.test OR p_data ->> 'test' = 'true');
  RETURN true;
END $function$;
