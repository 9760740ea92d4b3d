-- AlterTable
ALTER TABLE "deployments" ADD COLUMN     "commit_info" JSONB;

-- CreateTable
CREATE TABLE "github_installations" (
    "installation_id" BIGINT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "account_login" TEXT NOT NULL,
    "account_type" TEXT NOT NULL,
    "suspended" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "github_installations_pkey" PRIMARY KEY ("installation_id")
);

-- CreateTable
CREATE TABLE "github_deliveries" (
    "id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "payload" JSONB,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "result" TEXT,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "handled_at" TIMESTAMPTZ(3),

    CONSTRAINT "github_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "github_installations_workspace_id_idx" ON "github_installations"("workspace_id");

-- CreateIndex
CREATE INDEX "github_deliveries_received_at_idx" ON "github_deliveries"("received_at");
