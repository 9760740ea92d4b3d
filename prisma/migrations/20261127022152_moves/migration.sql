-- Issue 32: moves of a workspace from one server to another (the record of each move and its steps).
CREATE TABLE "moves" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "workspace_slug" TEXT NOT NULL,
    "from_node_id" UUID NOT NULL,
    "from_node" TEXT NOT NULL,
    "to_node_id" UUID NOT NULL,
    "to_node" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "reason" TEXT NOT NULL DEFAULT 'operator',
    "steps" JSONB NOT NULL DEFAULT '[]',
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "cancel_requested_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "moves_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "moves_workspace_id_idx" ON "moves"("workspace_id");
CREATE INDEX "moves_state_idx" ON "moves"("state");
