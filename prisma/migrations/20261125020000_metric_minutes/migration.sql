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
CREATE TABLE "metric_half_hours" (
    "target_id" UUID NOT NULL,
    "at" TIMESTAMPTZ(0) NOT NULL,
    "kind" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "cpu_millis_sum" BIGINT NOT NULL,
    "minutes" INTEGER NOT NULL,
    "memory_mb" INTEGER NOT NULL,
    "network_rx_bytes" BIGINT NOT NULL,
    "network_tx_bytes" BIGINT NOT NULL,
    "disk_read_bytes" BIGINT NOT NULL,
    "disk_write_bytes" BIGINT NOT NULL,
    "folder_mb" INTEGER,

    CONSTRAINT "metric_half_hours_pkey" PRIMARY KEY ("target_id","at")
);

-- CreateTable
CREATE TABLE "node_metrics" (
    "node_id" UUID NOT NULL,
    "minute" BIGINT NOT NULL DEFAULT 0,
    "cpu_total_millis" INTEGER,
    "cpu_used_millis" INTEGER,
    "memory_total_mb" INTEGER,
    "memory_used_mb" INTEGER,
    "disk_total_mb" INTEGER,
    "disk_free_mb" INTEGER,
    "containers" INTEGER,
    "usage_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "node_metrics_pkey" PRIMARY KEY ("node_id")
);

-- CreateIndex (the pruning: rows older than 31 days)
CREATE INDEX "metric_minutes_at_idx" ON "metric_minutes" ("at");

-- CreateIndex (the pruning)
CREATE INDEX "metric_half_hours_at_idx" ON "metric_half_hours"("at");
