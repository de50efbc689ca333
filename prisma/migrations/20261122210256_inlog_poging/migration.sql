-- CreateTable
CREATE TABLE "inlog_poging" (
    "id" UUID NOT NULL,
    "teller" UUID NOT NULL,
    "emmer" TEXT NOT NULL,
    "tijdstip" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "inlog_poging_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "inlog_poging_teller_emmer_tijdstip_idx" ON "inlog_poging"("teller", "emmer", "tijdstip");
