-- Statement trigger on verbruik (AFTER INSERT, the new rows as a transition table): adds them to their
-- day's totals in verbruik_per_dag (the calendar day in Europe/Amsterdam, per service, key and outcome),
-- in the transaction that recorded them. Writers of one total wait for each other (ON CONFLICT); no
-- deadlock: a charge locks its account's row first, and the other writer (the record of a charge
-- refused at its monthly cap) touches one total.
CREATE OR REPLACE FUNCTION public.verbruik_per_dag_bij()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO verbruik_per_dag AS d (account_id, dag, voorziening, key_id, geslaagd, aantal, credits, gefactureerd_cent)
  SELECT n.account_id, (n.aangemaakt_op AT TIME ZONE 'Europe/Amsterdam')::date, n.voorziening, n.key_id, n.status < 400,
         count(*)::int, sum(n.credits)::int, sum(n.gefactureerd_cent)::int
  FROM nieuw n
  GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT (account_id, dag, voorziening, key_id, geslaagd) DO UPDATE
  SET aantal = d.aantal + excluded.aantal, credits = d.credits + excluded.credits, gefactureerd_cent = d.gefactureerd_cent + excluded.gefactureerd_cent;
  RETURN NULL;
END $function$;
