-- CreateTable
CREATE TABLE "account" (
    "id" UUID NOT NULL,
    "naam" TEXT NOT NULL,
    "credits" INTEGER NOT NULL DEFAULT 0,
    "drempel_credits" INTEGER NOT NULL DEFAULT 100,
    "aangemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "gebruiker" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "wachtwoord_hash" TEXT NOT NULL,
    "aangemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gebruiker_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessie" (
    "id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "verloopt_op" TIMESTAMPTZ(3) NOT NULL,
    "aangemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessie_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_sleutel" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "naam" TEXT NOT NULL,
    "familie" TEXT NOT NULL,
    "rechten" TEXT[],
    "hash" TEXT NOT NULL,
    "voorvoegsel" TEXT NOT NULL,
    "verloopt_op" TIMESTAMPTZ(3) NOT NULL,
    "ingetrokken_op" TIMESTAMPTZ(3),
    "vervangen_door" UUID,
    "laatst_gebruikt_op" TIMESTAMPTZ(3),
    "verloop_melding_op" TIMESTAMPTZ(3),
    "aangemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_sleutel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "grootboek" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "credits" INTEGER NOT NULL,
    "soort" TEXT NOT NULL,
    "usage_id" UUID,
    "omschrijving" TEXT,
    "aangemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "grootboek_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verbruik" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "key_id" UUID NOT NULL,
    "kanaal" TEXT NOT NULL,
    "voorziening" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "credits" INTEGER NOT NULL,
    "gefactureerd_cent" INTEGER NOT NULL,
    "cached" BOOLEAN NOT NULL DEFAULT false,
    "adres" TEXT,
    "aangemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "verbruik_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotentie" (
    "id" UUID NOT NULL,
    "key_id" UUID NOT NULL,
    "scope" TEXT NOT NULL,
    "sleutel" TEXT NOT NULL,
    "verzoek_hash" TEXT NOT NULL,
    "toestand" TEXT NOT NULL,
    "status" INTEGER,
    "antwoord" JSONB,
    "aangemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "verloopt_op" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotentie_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "snelheidslimiet" (
    "id" UUID NOT NULL,
    "key_id" UUID NOT NULL,
    "emmer" TEXT NOT NULL,
    "tijdstip" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "snelheidslimiet_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "omschrijving" TEXT,
    "geheim" TEXT NOT NULL,
    "actief" BOOLEAN NOT NULL DEFAULT true,
    "uitgeschakeld_op" TIMESTAMPTZ(3),
    "uitschakel_reden" TEXT,
    "aangemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_gebeurtenis" (
    "id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "aangemaakt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_gebeurtenis_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_aflevering" (
    "id" UUID NOT NULL,
    "event_id" TEXT NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "toestand" TEXT NOT NULL DEFAULT 'wachtend',
    "pogingen" INTEGER NOT NULL DEFAULT 0,
    "volgende_poging" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "laatste_status" INTEGER,
    "laatste_fout" TEXT,
    "bijgewerkt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_aflevering_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "adres" (
    "id" TEXT NOT NULL,
    "postcode" TEXT NOT NULL,
    "huisnummer" INTEGER NOT NULL,
    "huisletter" TEXT,
    "toevoeging" TEXT,
    "straat" TEXT NOT NULL,
    "woonplaats" TEXT NOT NULL,
    "gemeente" TEXT,
    "gemeente_code" TEXT,
    "buurt_code" TEXT,
    "buurt_naam" TEXT,
    "wijk_code" TEXT,
    "wijk_naam" TEXT,
    "object_type" TEXT NOT NULL,
    "object_id" TEXT,
    "pand_id" TEXT,
    "gebruiksdoelen" TEXT[],
    "oppervlakte" INTEGER,
    "bouwjaar" INTEGER,
    "status" TEXT,
    "rd_x" DOUBLE PRECISION,
    "rd_y" DOUBLE PRECISION,
    "lat" DOUBLE PRECISION,
    "lon" DOUBLE PRECISION,
    "bron" TEXT NOT NULL,
    "bron_datum" DATE,
    "bijgewerkt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "adres_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pand" (
    "id" TEXT NOT NULL,
    "bouwjaar" INTEGER,
    "status" TEXT,
    "geometrie" JSONB,
    "bron" TEXT NOT NULL,
    "bijgewerkt_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pand_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "woz_waarde" (
    "adres_id" TEXT NOT NULL,
    "peildatum" DATE NOT NULL,
    "waarde" INTEGER NOT NULL,
    "bron" TEXT NOT NULL,

    CONSTRAINT "woz_waarde_pkey" PRIMARY KEY ("adres_id","peildatum")
);

-- CreateTable
CREATE TABLE "energielabel" (
    "adres_id" TEXT NOT NULL,
    "label" TEXT,
    "registratiedatum" DATE,
    "geldig_tot" DATE,
    "opnametype" TEXT,
    "energie_index" DOUBLE PRECISION,
    "bron" TEXT NOT NULL,

    CONSTRAINT "energielabel_pkey" PRIMARY KEY ("adres_id")
);

-- CreateTable
CREATE TABLE "woningtype" (
    "adres_id" TEXT NOT NULL,
    "woningtype" TEXT NOT NULL,
    "afgeleid_uit" TEXT NOT NULL,
    "bron" TEXT NOT NULL,

    CONSTRAINT "woningtype_pkey" PRIMARY KEY ("adres_id")
);

-- CreateTable
CREATE TABLE "invloed_object" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "naam" TEXT,
    "geometrie" JSONB NOT NULL,
    "bron" TEXT NOT NULL,

    CONSTRAINT "invloed_object_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "adres_invloed" (
    "adres_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "indicator" TEXT NOT NULL,
    "afstand_m" INTEGER,
    "omschrijving" TEXT NOT NULL,
    "bron" TEXT NOT NULL,

    CONSTRAINT "adres_invloed_pkey" PRIMARY KEY ("adres_id","type")
);

-- CreateTable
CREATE TABLE "verkoop" (
    "id" TEXT NOT NULL,
    "adres_id" TEXT,
    "postcode" TEXT,
    "huisnummer" INTEGER,
    "toevoeging" TEXT,
    "transactiedatum" DATE NOT NULL,
    "koopsom" INTEGER NOT NULL,
    "oppervlakte" INTEGER,
    "perceel" INTEGER,
    "bouwjaar" INTEGER,
    "woningtype" TEXT,
    "energielabel" TEXT,
    "lat" DOUBLE PRECISION,
    "lon" DOUBLE PRECISION,
    "bron" TEXT NOT NULL,

    CONSTRAINT "verkoop_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "prijsindex" (
    "tabel" TEXT NOT NULL,
    "regio" TEXT NOT NULL,
    "periode" DATE NOT NULL,
    "index" DOUBLE PRECISION NOT NULL,
    "bron" TEXT NOT NULL,

    CONSTRAINT "prijsindex_pkey" PRIMARY KEY ("tabel","regio","periode")
);

-- CreateTable
CREATE TABLE "import_run" (
    "id" UUID NOT NULL,
    "soort" TEXT NOT NULL,
    "bestand" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "gelezen" INTEGER NOT NULL DEFAULT 0,
    "ingevoegd" INTEGER NOT NULL DEFAULT 0,
    "bijgewerkt" INTEGER NOT NULL DEFAULT 0,
    "afgewezen" INTEGER NOT NULL DEFAULT 0,
    "samenvatting" JSONB,
    "gestart_op" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "klaar_op" TIMESTAMPTZ(3),

    CONSTRAINT "import_run_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "gebruiker_email_key" ON "gebruiker"("email");

-- CreateIndex
CREATE INDEX "gebruiker_account_id_idx" ON "gebruiker"("account_id");

-- CreateIndex
CREATE INDEX "sessie_user_id_idx" ON "sessie"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_sleutel_hash_key" ON "api_sleutel"("hash");

-- CreateIndex
CREATE INDEX "api_sleutel_account_id_idx" ON "api_sleutel"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "grootboek_usage_id_key" ON "grootboek"("usage_id");

-- CreateIndex
CREATE INDEX "grootboek_account_id_aangemaakt_op_idx" ON "grootboek"("account_id", "aangemaakt_op");

-- CreateIndex
CREATE INDEX "verbruik_account_id_aangemaakt_op_idx" ON "verbruik"("account_id", "aangemaakt_op" DESC);

-- CreateIndex
CREATE INDEX "idempotentie_verloopt_op_idx" ON "idempotentie"("verloopt_op");

-- CreateIndex
CREATE UNIQUE INDEX "idempotentie_key_id_scope_sleutel_key" ON "idempotentie"("key_id", "scope", "sleutel");

-- CreateIndex
CREATE INDEX "snelheidslimiet_key_id_emmer_tijdstip_idx" ON "snelheidslimiet"("key_id", "emmer", "tijdstip");

-- CreateIndex
CREATE INDEX "webhook_account_id_idx" ON "webhook"("account_id");

-- CreateIndex
CREATE INDEX "webhook_gebeurtenis_account_id_aangemaakt_op_idx" ON "webhook_gebeurtenis"("account_id", "aangemaakt_op");

-- CreateIndex
CREATE INDEX "webhook_aflevering_toestand_volgende_poging_idx" ON "webhook_aflevering"("toestand", "volgende_poging");

-- CreateIndex
CREATE INDEX "webhook_aflevering_endpoint_id_idx" ON "webhook_aflevering"("endpoint_id");

-- CreateIndex
CREATE INDEX "adres_postcode_huisnummer_idx" ON "adres"("postcode", "huisnummer");

-- CreateIndex
CREATE INDEX "adres_pand_id_idx" ON "adres"("pand_id");

-- CreateIndex
CREATE INDEX "invloed_object_type_idx" ON "invloed_object"("type");

-- CreateIndex
CREATE INDEX "verkoop_transactiedatum_idx" ON "verkoop"("transactiedatum");

-- CreateIndex
CREATE INDEX "verkoop_adres_id_idx" ON "verkoop"("adres_id");

-- CreateIndex
CREATE INDEX "import_run_soort_idx" ON "import_run"("soort");

-- AddForeignKey
ALTER TABLE "gebruiker" ADD CONSTRAINT "gebruiker_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessie" ADD CONSTRAINT "sessie_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "gebruiker"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_sleutel" ADD CONSTRAINT "api_sleutel_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "grootboek" ADD CONSTRAINT "grootboek_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "grootboek" ADD CONSTRAINT "grootboek_usage_id_fkey" FOREIGN KEY ("usage_id") REFERENCES "verbruik"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "verbruik" ADD CONSTRAINT "verbruik_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook" ADD CONSTRAINT "webhook_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_gebeurtenis" ADD CONSTRAINT "webhook_gebeurtenis_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_aflevering" ADD CONSTRAINT "webhook_aflevering_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_gebeurtenis"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_aflevering" ADD CONSTRAINT "webhook_aflevering_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (Prisma cannot express CHECK constraints): the balance can never go below zero, and
-- a ledger row always moves credits.
ALTER TABLE "account" ADD CONSTRAINT "account_credits_niet_negatief" CHECK ("credits" >= 0);
ALTER TABLE "grootboek" ADD CONSTRAINT "grootboek_credits_niet_nul" CHECK ("credits" <> 0);
