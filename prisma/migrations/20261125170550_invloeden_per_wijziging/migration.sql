-- AlterTable
ALTER TABLE "adres_invloed" ADD COLUMN     "lat" DOUBLE PRECISION,
ADD COLUMN     "lon" DOUBLE PRECISION;

-- CreateTable
CREATE TABLE "invloed_stand" (
    "type" TEXT NOT NULL,
    "vingerafdruk" TEXT NOT NULL,
    "berekend_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invloed_stand_pkey" PRIMARY KEY ("type")
);
