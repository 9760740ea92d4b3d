-- Issue 31: an operator can cordon a server (no new workspace is placed on it).
ALTER TABLE "nodes" ADD COLUMN "cordoned_at" TIMESTAMPTZ(3);
