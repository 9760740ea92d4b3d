-- Issue 21: disk as a plan resource and the servers' free disk.

-- AlterTable
ALTER TABLE "apps" ADD COLUMN     "disk_mb" INTEGER NOT NULL DEFAULT 512;

-- AlterTable
ALTER TABLE "nodes" ADD COLUMN     "disk_free_mb" INTEGER,
ADD COLUMN     "disk_reserve_mb" INTEGER,
ADD COLUMN     "disk_total_mb" INTEGER;

-- AlterTable
ALTER TABLE "plans" ADD COLUMN     "disk_mb" INTEGER;

-- Existing apps get the default folder size; their reservations hold it from now on, like a new app's.
UPDATE "reservations" SET "disk_mb" = 512 WHERE "resource_type" = 'app' AND "disk_mb" = 0;
