-- AlterTable
ALTER TABLE "apps" ADD COLUMN     "build_command" TEXT,
ADD COLUMN     "root_directory" TEXT,
ADD COLUMN     "start_command" TEXT;
