-- Issue 15: per-app (and per-database) metrics, one row per workload and minute, kept 31 days.

-- CreateTable
CREATE TABLE "metric_minutes" (
    "target_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(0) NOT NULL,
    "kind" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "node_id" UUID NOT NULL,
    "cpu_millis" INTEGER NOT NULL,
    "memory_mb" INTEGER NOT NULL,
    "network_rx_bytes" BIGINT NOT NULL,
    "network_tx_bytes" BIGINT NOT NULL,
    "disk_read_bytes" BIGINT NOT NULL,
    "disk_write_bytes" BIGINT NOT NULL,
    "folder_mb" INTEGER,

    CONSTRAINT "metric_minutes_pkey" PRIMARY KEY ("target_id","at")
);

-- CreateTable
CREATE TABLE "metric_cursors" (
    "node_id" UUID NOT NULL,
    "minute" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "metric_cursors_pkey" PRIMARY KEY ("node_id")
);

-- CreateIndex (the pruning: rows older than 31 days)
CREATE INDEX "metric_minutes_at_idx" ON "metric_minutes" ("at");
