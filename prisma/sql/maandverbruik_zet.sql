-- Sets what a key has charged in month p_maand. The current month never moves back: a later month moves
-- the current one into vorige_maand; an earlier one (a charge that settles late) is written there.
CREATE OR REPLACE FUNCTION public.maandverbruik_zet(p_key uuid, p_maand text, p_verbruikt integer)
 RETURNS void
 LANGUAGE sql
AS $function$
  UPDATE api_sleutel s SET
    vorige_maand = CASE WHEN s.maand > p_maand THEN p_maand WHEN s.maand < p_maand THEN s.maand ELSE s.vorige_maand END,
    vorige_maand_verbruikt = CASE WHEN s.maand > p_maand THEN p_verbruikt WHEN s.maand < p_maand THEN s.maand_verbruikt ELSE s.vorige_maand_verbruikt END,
    maand = CASE WHEN s.maand > p_maand THEN s.maand ELSE p_maand END,
    maand_verbruikt = CASE WHEN s.maand > p_maand THEN s.maand_verbruikt ELSE p_verbruikt END
  WHERE s.id = p_key
$function$;
