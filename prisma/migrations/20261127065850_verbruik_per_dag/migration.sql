-- First, and until the end of this transaction: charges wait for it before they lock an account row.
-- Without it a charge could hold its account row while waiting for the foreign key's table lock below,
-- and the fill's key check wait for that row: a deadlock of a migration run beside live traffic.
LOCK TABLE "account", "verbruik" IN EXCLUSIVE MODE;

-- CreateTable
CREATE TABLE "verbruik_per_dag" (
    "account_id" UUID NOT NULL,
    "dag" DATE NOT NULL,
    "voorziening" TEXT NOT NULL,
    "key_id" UUID NOT NULL,
    "geslaagd" BOOLEAN NOT NULL,
    "aantal" INTEGER NOT NULL,
    "credits" INTEGER NOT NULL,
    "gefactureerd_cent" INTEGER NOT NULL,

    CONSTRAINT "verbruik_per_dag_pkey" PRIMARY KEY ("account_id","dag","voorziening","key_id","geslaagd")
);

-- AddForeignKey
ALTER TABLE "verbruik_per_dag" ADD CONSTRAINT "verbruik_per_dag_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

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


-- The trigger first, then the totals of what was recorded before it, in this one transaction: the
-- trigger's lock holds back a running server's new usage rows until both are in.
CREATE TRIGGER "verbruik_per_dag_bij" AFTER INSERT ON "verbruik"
  REFERENCING NEW TABLE AS nieuw FOR EACH STATEMENT EXECUTE FUNCTION verbruik_per_dag_bij();

INSERT INTO "verbruik_per_dag" (account_id, dag, voorziening, key_id, geslaagd, aantal, credits, gefactureerd_cent)
SELECT account_id, (aangemaakt_op AT TIME ZONE 'Europe/Amsterdam')::date, voorziening, key_id, status < 400,
       count(*)::int, sum(credits)::int, sum(gefactureerd_cent)::int
FROM "verbruik"
GROUP BY 1, 2, 3, 4, 5;
