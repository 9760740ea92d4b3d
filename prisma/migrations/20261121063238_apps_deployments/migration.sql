-- CreateTable
CREATE TABLE "apps" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "image" TEXT,
    "port" INTEGER,
    "health_path" TEXT,
    "cpu_millis" INTEGER NOT NULL,
    "memory_mb" INTEGER NOT NULL,
    "subdomain" TEXT,
    "github" JSONB,
    "status" TEXT NOT NULL DEFAULT 'idle',
    "desired_state" TEXT NOT NULL DEFAULT 'running',
    "status_detail" JSONB,
    "running_since" TIMESTAMPTZ(3),
    "next_deployment_number" INTEGER NOT NULL DEFAULT 1,
    "current_deployment_id" UUID,
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "apps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deployments" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "source" TEXT NOT NULL,
    "image" TEXT,
    "image_id" TEXT,
    "commit_sha" TEXT,
    "rollback_of_id" UUID,
    "failure_reason" TEXT,
    "image_available" BOOLEAN NOT NULL DEFAULT true,
    "container_id" TEXT,
    "host_port" INTEGER,
    "cpu_millis" INTEGER NOT NULL,
    "memory_mb" INTEGER NOT NULL,
    "port" INTEGER,
    "triggered_by_id" UUID,
    "triggered_by_name" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "deployments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deployment_log_lines" (
    "deployment_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "phase" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deployment_log_lines_pkey" PRIMARY KEY ("deployment_id","seq")
);

-- CreateTable
CREATE TABLE "env_vars" (
    "app_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "secret" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "env_vars_pkey" PRIMARY KEY ("app_id","key")
);

-- CreateIndex
CREATE UNIQUE INDEX "apps_subdomain_key" ON "apps"("subdomain");

-- CreateIndex
CREATE INDEX "apps_workspace_id_idx" ON "apps"("workspace_id");

-- CreateIndex
CREATE UNIQUE INDEX "apps_workspace_id_slug_key" ON "apps"("workspace_id", "slug");

-- CreateIndex
CREATE INDEX "deployments_workspace_id_idx" ON "deployments"("workspace_id");

-- CreateIndex
CREATE INDEX "deployments_status_idx" ON "deployments"("status");

-- CreateIndex
CREATE UNIQUE INDEX "deployments_app_id_number_key" ON "deployments"("app_id", "number");

-- AddForeignKey
ALTER TABLE "apps" ADD CONSTRAINT "apps_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployment_log_lines" ADD CONSTRAINT "deployment_log_lines_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "env_vars" ADD CONSTRAINT "env_vars_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;
