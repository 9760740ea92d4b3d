-- Managed databases (issue 12): one row per database; the password sealed like secret variables.
-- CreateTable
CREATE TABLE "databases" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "node_id" UUID,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "cpu_millis" INTEGER NOT NULL,
    "memory_mb" INTEGER NOT NULL,
    "disk_mb" INTEGER NOT NULL,
    "username" TEXT NOT NULL,
    "database_name" TEXT NOT NULL,
    "password_sealed" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'provisioning',
    "desired_state" TEXT NOT NULL DEFAULT 'running',
    "generation" INTEGER NOT NULL DEFAULT 0,
    "status_message" TEXT,
    "public_enabled" BOOLEAN NOT NULL DEFAULT false,
    "public_port" INTEGER,
    "allowed_cidrs" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "applied_cpu_millis" INTEGER,
    "applied_memory_mb" INTEGER,
    "running_since" TIMESTAMPTZ(3),
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "databases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "databases_workspace_id_idx" ON "databases"("workspace_id");

-- CreateIndex
CREATE UNIQUE INDEX "databases_workspace_id_slug_key" ON "databases"("workspace_id", "slug");

-- CreateIndex
CREATE UNIQUE INDEX "databases_node_id_public_port_key" ON "databases"("node_id", "public_port");

-- AddForeignKey
ALTER TABLE "databases" ADD CONSTRAINT "databases_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
