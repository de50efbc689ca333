-- sleutel.limiet_bereikt, once per key per calendar month (Europe/Amsterdam): the conditional UPDATE of
-- the key's notified month and the event commit together, so of many refusals (in any process) exactly
-- one writes it; true when this call wrote it.
CREATE OR REPLACE FUNCTION public.sleutel_limiet_melden(p_key uuid, p_event_id text, p_tijdstempel text, p_nu timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_maand TEXT := to_char(p_nu AT TIME ZONE 'Europe/Amsterdam', 'YYYY-MM');
  s api_sleutel%ROWTYPE;
BEGIN
  -- Never back to an earlier month (a refusal that settles late at a month's end): the new month's event would repeat.
  UPDATE api_sleutel k SET limiet_gemeld_maand = v_maand
  WHERE k.id = limietsleutel(p_key) AND (k.limiet_gemeld_maand IS NULL OR k.limiet_gemeld_maand < v_maand)
  RETURNING * INTO s;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  RETURN webhook_schrijf(s.account_id, p_event_id, 'sleutel.limiet_bereikt', p_tijdstempel,
    jsonb_build_object('sleutel_voorvoegsel', s.voorvoegsel, 'naam', s.naam, 'maand', v_maand,
      'maandlimiet_credits', s.maandlimiet_credits,
      'verbruikt_credits', maandverbruik(s, v_maand)), p_nu);
END $function$;
