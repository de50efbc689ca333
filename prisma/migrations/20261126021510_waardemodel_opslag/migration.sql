-- CreateTable
CREATE TABLE "waardemodel_blok" (
    "deel" TEXT NOT NULL,
    "volgnr" INTEGER NOT NULL,
    "versie" TEXT NOT NULL,
    "vintage" TEXT NOT NULL,
    "gemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" BYTEA NOT NULL,

    CONSTRAINT "waardemodel_blok_pkey" PRIMARY KEY ("deel","volgnr")
);