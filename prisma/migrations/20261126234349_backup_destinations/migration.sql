-- Issue 33: S3-compatible backup destinations per workspace (the secret key sealed), the destination a database
-- names (null: the workspace's default), and the per-workspace key off-server backups are encrypted with.
CREATE TABLE "backup_destinations" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "prefix" TEXT NOT NULL DEFAULT '',
    "path_style" BOOLEAN NOT NULL DEFAULT false,
    "access_key_id" TEXT NOT NULL,
    "secret_key_sealed" TEXT NOT NULL,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "backup_destinations_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "backup_destinations_workspace_id_name_key" ON "backup_destinations"("workspace_id", "name");

ALTER TABLE "backup_destinations" ADD CONSTRAINT "backup_destinations_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "workspace_backup_keys" (
    "workspace_id" UUID NOT NULL,
    "key_sealed" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspace_backup_keys_pkey" PRIMARY KEY ("workspace_id")
);

ALTER TABLE "workspace_backup_keys" ADD CONSTRAINT "workspace_backup_keys_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "databases" ADD COLUMN "backup_destination_id" UUID;

ALTER TABLE "databases" ADD CONSTRAINT "databases_backup_destination_id_fkey" FOREIGN KEY ("backup_destination_id") REFERENCES "backup_destinations"("id") ON DELETE SET NULL ON UPDATE CASCADE;
