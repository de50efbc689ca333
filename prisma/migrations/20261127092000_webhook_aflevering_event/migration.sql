-- CreateIndex (concurrently: a large delivery table stays writable, so charges of accounts with a webhook
-- go on while it is built; the script is this one statement, which PostgreSQL then runs outside a
-- transaction block. Should the build fail, PostgreSQL leaves an invalid index:
-- drop it, DROP INDEX CONCURRENTLY webhook_aflevering_event_id_idx, before the migration is tried again.)
CREATE INDEX CONCURRENTLY IF NOT EXISTS "webhook_aflevering_event_id_idx" ON "webhook_aflevering"("event_id");
