-- CreateTable
CREATE TABLE "uitgestelde_index" (
    "naam" TEXT NOT NULL,
    "tabel" TEXT NOT NULL,
    "definitie" TEXT NOT NULL,
    "import_run_id" UUID,
    "sinds" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "uitgestelde_index_pkey" PRIMARY KEY ("naam")
);
