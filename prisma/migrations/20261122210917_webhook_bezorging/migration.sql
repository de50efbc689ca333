-- AlterTable
ALTER TABLE "api_sleutel" ADD COLUMN     "verloop_melding_1d_op" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "webhook" ADD COLUMN     "falend_sinds" TIMESTAMPTZ(3),
ADD COLUMN     "vorig_geheim" TEXT,
ADD COLUMN     "vorig_geheim_tot" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "webhook_aflevering" ADD COLUMN     "geclaimd_tot" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "webhook_aflevering_endpoint_id_toestand_volgende_poging_idx" ON "webhook_aflevering"("endpoint_id", "toestand", "volgende_poging");

-- Wake every delivery worker listening on PostgreSQL (src/domain/webhooks/bezorger.ts) once the
-- transaction that wrote new deliveries commits (NOTIFY is delivered at commit, never for a rollback).
CREATE FUNCTION "webhook_aflevering_melden"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhook_aflevering', '');
  RETURN NULL;
END $$;

CREATE TRIGGER "webhook_aflevering_melden" AFTER INSERT ON "webhook_aflevering"
  FOR EACH STATEMENT EXECUTE FUNCTION "webhook_aflevering_melden"();
