-- Issue 31: since when a server's health checks fail (its workspaces show unreachable; operations answer 503).
ALTER TABLE "nodes" ADD COLUMN "unreachable_since" TIMESTAMPTZ(3);
