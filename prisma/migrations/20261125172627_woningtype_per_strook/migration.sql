-- CreateTable
CREATE TABLE "woonpand" (
    "pand_id" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "minx" DOUBLE PRECISION,
    "maxx" DOUBLE PRECISION,
    "aantal" INTEGER,
    "enige" TEXT,

    CONSTRAINT "woonpand_pkey" PRIMARY KEY ("pand_id")
);

-- CreateIndex
CREATE INDEX "woonpand_minx_pand_id_idx" ON "woonpand"("minx", "pand_id");
