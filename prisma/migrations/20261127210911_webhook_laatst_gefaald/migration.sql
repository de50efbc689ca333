-- AlterTable
ALTER TABLE "webhook" ADD COLUMN     "laatst_gefaald_op" TIMESTAMPTZ(3);