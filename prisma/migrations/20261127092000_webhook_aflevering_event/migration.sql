-- CreateIndex
CREATE INDEX "webhook_aflevering_event_id_idx" ON "webhook_aflevering"("event_id");