-- Issue 32: events of apps and databases their owners see (a move to another server), newest first per resource.
CREATE TABLE "resource_events" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "resource_kind" TEXT NOT NULL,
    "resource_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "resource_events_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "resource_events_resource_id_at_idx" ON "resource_events"("resource_id", "at");
