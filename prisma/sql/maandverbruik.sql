-- What a key has charged in month p_maand (YYYY-MM, Europe/Amsterdam): its current month's count, or the
-- month before it (a charge that settles late at a month's end), else 0.
CREATE OR REPLACE FUNCTION public.maandverbruik(s api_sleutel, p_maand text)
 RETURNS integer
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN s.maand = p_maand THEN s.maand_verbruikt
              WHEN s.maand > p_maand AND s.vorige_maand = p_maand THEN s.vorige_maand_verbruikt
              ELSE 0 END
$function$;
