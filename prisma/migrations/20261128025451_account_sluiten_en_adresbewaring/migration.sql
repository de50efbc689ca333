-- AlterTable
ALTER TABLE "account" ADD COLUMN     "gesloten_op" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "gebruiker" ADD COLUMN     "laatst_ingelogd_op" TIMESTAMPTZ(3);

-- CreateIndex (IF NOT EXISTS: on a large database build it CONCURRENTLY beforehand, docs/beheer.md)
CREATE INDEX IF NOT EXISTS "verbruik_adres_bewaring_idx" ON "verbruik"("aangemaakt_op") WHERE (adres IS NOT NULL);