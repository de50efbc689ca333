-- The key whose monthly cap a charge of p_key counts against: p_key, or after a rotation the key that
-- replaced it (to the end of the chain), so calls in flight while their key was rotated still count.
CREATE OR REPLACE FUNCTION public.limietsleutel(p_key uuid)
 RETURNS uuid
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v UUID := p_key;
  n UUID;
BEGIN
  FOR i IN 1 .. 100 LOOP
    SELECT s.vervangen_door INTO n FROM api_sleutel s WHERE s.id = v;
    EXIT WHEN n IS NULL;
    v := n;
  END LOOP;
  RETURN v;
END $function$;
