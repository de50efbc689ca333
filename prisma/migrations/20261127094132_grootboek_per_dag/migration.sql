-- First, and until the end of this transaction: charges wait for it before they lock an account row.
-- Without it a charge could hold its account row while waiting for the foreign key's table lock below,
-- and the fill's key check wait for that row: a deadlock of a migration run beside live traffic.
LOCK TABLE "account", "grootboek" IN EXCLUSIVE MODE;

-- CreateTable
CREATE TABLE "grootboek_per_dag" (
    "account_id" UUID NOT NULL,
    "dag" DATE NOT NULL,
    "aantal" INTEGER NOT NULL,

    CONSTRAINT "grootboek_per_dag_pkey" PRIMARY KEY ("account_id","dag")
);

-- AddForeignKey
ALTER TABLE "grootboek_per_dag" ADD CONSTRAINT "grootboek_per_dag_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

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

-- The trigger first, then the totals of what was written before it, in this one transaction: the
-- trigger's lock holds back a running server's new ledger rows until both are in.
CREATE TRIGGER "grootboek_per_dag_bij" AFTER INSERT ON "grootboek"
  REFERENCING NEW TABLE AS nieuw FOR EACH STATEMENT EXECUTE FUNCTION grootboek_per_dag_bij();

INSERT INTO "grootboek_per_dag" (account_id, dag, aantal)
SELECT account_id, (aangemaakt_op AT TIME ZONE 'Europe/Amsterdam')::date, count(*)::int
FROM "grootboek"
GROUP BY 1, 2;
