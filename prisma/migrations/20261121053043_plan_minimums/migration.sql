-- AlterTable
ALTER TABLE "plans" ADD COLUMN     "minimums" JSONB NOT NULL DEFAULT '{}';
