-- Trigger on new deliveries: wakes the delivery workers of every process (LISTEN webhook_aflevering).
CREATE OR REPLACE FUNCTION public.webhook_aflevering_melden()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('webhook_aflevering', '');
  RETURN NULL;
END $function$;
