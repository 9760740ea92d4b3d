-- Every intent on an app bumps it in the transaction that records the intent (README, "Apps converge to their last intent").
-- AlterTable
ALTER TABLE "apps" ADD COLUMN     "generation" INTEGER NOT NULL DEFAULT 0;
