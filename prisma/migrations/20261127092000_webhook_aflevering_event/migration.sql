-- CreateIndex (a large delivery table is locked against writes while it is built: see docs/beheer.md,
-- "Upgrading a large database", for building it concurrently beforehand, after which this is a no-op)
CREATE INDEX IF NOT EXISTS "webhook_aflevering_event_id_idx" ON "webhook_aflevering"("event_id");
