-- Issue 14: custom domains of web apps.

-- CreateTable
CREATE TABLE "domains" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "hostname" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "txt_value" TEXT NOT NULL,
    "check" JSONB,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "pending_until" TIMESTAMPTZ(3) NOT NULL,
    "next_check_at" TIMESTAMPTZ(3),
    "verified_at" TIMESTAMPTZ(3),
    "certificate" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "domains_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "domains_hostname_key" ON "domains"("hostname");

-- CreateIndex
CREATE INDEX "domains_workspace_id_idx" ON "domains"("workspace_id");

-- CreateIndex
CREATE INDEX "domains_app_id_idx" ON "domains"("app_id");

-- CreateIndex
CREATE INDEX "domains_next_check_at_idx" ON "domains"("next_check_at");

-- AddForeignKey
ALTER TABLE "domains" ADD CONSTRAINT "domains_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "domains" ADD CONSTRAINT "domains_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;
