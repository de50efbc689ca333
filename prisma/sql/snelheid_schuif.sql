-- Slide a bucket's 60 one-second slots from second `van` to second `tot`: slots that left the window
-- are zeroed, a gap of a minute or more clears them all.
CREATE OR REPLACE FUNCTION public.snelheid_schuif(t integer[], van bigint, tot bigint)
 RETURNS integer[]
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
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
END $function$;
