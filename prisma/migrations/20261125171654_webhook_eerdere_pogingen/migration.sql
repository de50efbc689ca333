-- AlterTable
ALTER TABLE "webhook_aflevering" ADD COLUMN     "eerdere_pogingen" INTEGER NOT NULL DEFAULT 0;
