-- The tag the agent gave a deployment's image: the agent owns the naming, the control plane stores what it returns.
ALTER TABLE "deployments" ADD COLUMN "image_ref" TEXT;

-- Deployments whose image was made before this column carry the tag the agent has always given them.
UPDATE "deployments" SET "image_ref" = 'slipway-app/' || "app_id"::text || ':' || "id"::text WHERE "image_id" IS NOT NULL;
