-- AlterTable
ALTER TABLE "waardemodel_blok" ADD COLUMN     "controle" BYTEA;