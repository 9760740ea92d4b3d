-- Database backups (issue 13): one row per backup file. No foreign key to databases: a deleted database's backups
-- stay until they expire, and restore-into-new works from them.
-- CreateTable
CREATE TABLE "database_backups" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "database_id" UUID NOT NULL,
    "node_id" UUID,
    "source_name" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "cpu_millis" INTEGER NOT NULL,
    "memory_mb" INTEGER NOT NULL,
    "disk_mb" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "error" TEXT,
    "size_bytes" BIGINT,
    "sha256" TEXT,
    "path" TEXT,
    "format" TEXT,
    "night" TEXT,
    "verify_status" TEXT,
    "verify_message" TEXT,
    "verified_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "database_backups_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "database_backups_workspace_id_database_id_created_at_idx" ON "database_backups"("workspace_id", "database_id", "created_at");

-- CreateIndex
CREATE INDEX "database_backups_expires_at_idx" ON "database_backups"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "database_backups_database_id_night_key" ON "database_backups"("database_id", "night");
