-- Statement trigger on grootboek (AFTER INSERT, the new rows as a transition table): counts them into their
-- day's total in grootboek_per_dag (the calendar day in Europe/Amsterdam), in the transaction that wrote
-- them. Every ledger writer holds its account's row lock first, so writers of one total do not deadlock.
CREATE OR REPLACE FUNCTION public.grootboek_per_dag_bij()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO grootboek_per_dag AS d (account_id, dag, aantal)
  SELECT n.account_id, (n.aangemaakt_op AT TIME ZONE 'Europe/Amsterdam')::date, count(*)::int
  FROM nieuw n
  GROUP BY 1, 2
  ON CONFLICT (account_id, dag) DO UPDATE SET aantal = d.aantal + excluded.aantal;
  RETURN NULL;
END $function$;
