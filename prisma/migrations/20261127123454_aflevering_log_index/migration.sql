-- The delivery log of an endpoint, newest first, a page after a cursor from an index instead of a sort of
-- all its deliveries. Built plainly (PGlite cannot build concurrently); on a large PostgreSQL database,
-- build it CONCURRENTLY first under this name (docs/beheer.md, "Upgrading a large database").
CREATE INDEX IF NOT EXISTS "webhook_aflevering_endpoint_id_id_idx" ON "webhook_aflevering"("endpoint_id", "id" DESC);

-- Its first column serves what this one did.
DROP INDEX IF EXISTS "webhook_aflevering_endpoint_id_idx";
