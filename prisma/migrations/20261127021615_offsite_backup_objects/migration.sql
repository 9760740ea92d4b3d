-- Issue 33: where an off-server backup lives: its destination (set null when the destination is removed; the objects
-- stay in the bucket), the stored object's key, size and SHA-256 (of the sealed bytes, read back before completion).
ALTER TABLE "database_backups" ADD COLUMN "destination_id" UUID,
ADD COLUMN "remote_key" TEXT,
ADD COLUMN "remote_sha256" TEXT,
ADD COLUMN "remote_size_bytes" BIGINT;

ALTER TABLE "database_backups" ADD CONSTRAINT "database_backups_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "backup_destinations"("id") ON DELETE SET NULL ON UPDATE CASCADE;
