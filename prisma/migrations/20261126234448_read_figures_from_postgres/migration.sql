-- Issue 34: reads never wait on an agent. An app's folder usage as the metrics pipeline last carried it, with the
-- minute of that sample; the database engines each agent can run, as its last health check said, with its time.
ALTER TABLE "apps" ADD COLUMN "folder_used_mb" INTEGER, ADD COLUMN "folder_measured_at" TIMESTAMPTZ(3);
ALTER TABLE "nodes" ADD COLUMN "database_engines" JSONB, ADD COLUMN "database_engines_at" TIMESTAMPTZ(3);
