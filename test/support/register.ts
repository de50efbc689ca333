/** Factories for register data: every call makes a unique address, so tests never share rows. */
import type { Db } from '../../src/db/client.ts';

let teller = 0;

export interface AdresOpties {
  postcode?: string;
  huisnummer?: number;
  huisletter?: string | null;
  toevoeging?: string | null;
  oppervlakte?: number | null;
  lat?: number;
  lon?: number;
  objectType?: string;
  gebruiksdoelen?: string[];
  bouwjaar?: number | null;
  status?: string | null;
}

/** A unique postcode per call: 1000AA, 1000AB, ... in a range tests do not otherwise use. */
export function uniekePostcode(): string {
  const n = teller++;
  const letters = 'ABCDEFGHJKLMNPRTUVWXYZ';
  const cijfers = 1000 + Math.floor(n / (letters.length * letters.length)) + (process.pid % 50) * 100;
  return `${cijfers}${letters[Math.floor(n / letters.length) % letters.length]}${letters[n % letters.length]}`;
}

export async function maakAdres(db: Db, o: AdresOpties = {}) {
  const id = `0${String(Date.now() % 1e9).padStart(9, '0')}${String(teller++).padStart(6, '0')}`;
  return db.adres.create({
    data: {
      id,
      postcode: o.postcode ?? uniekePostcode(),
      huisnummer: o.huisnummer ?? 12,
      huisletter: o.huisletter ?? null,
      toevoeging: o.toevoeging ?? null,
      straat: 'Teststraat',
      woonplaats: 'Proefdorp',
      gemeente: 'Proefgemeente',
      gemeenteCode: 'GM9999',
      buurtCode: 'BU99990101',
      buurtNaam: 'Centrum',
      wijkCode: 'WK999901',
      wijkNaam: 'Oud',
      objectType: o.objectType ?? 'verblijfsobject',
      objectId: `${id}v`,
      pandId: `${id}p`,
      gebruiksdoelen: o.gebruiksdoelen ?? ['woonfunctie'],
      oppervlakte: o.oppervlakte === undefined ? 120 : o.oppervlakte,
      bouwjaar: o.bouwjaar === undefined ? 1975 : o.bouwjaar,
      status: o.status === undefined ? 'Verblijfsobject in gebruik' : o.status,
      lat: o.lat ?? 52.1,
      lon: o.lon ?? 5.1,
      bron: 'testdata',
    },
  });
}

/** An address with every lookup's data held. */
export async function maakVolledigAdres(db: Db, o: AdresOpties = {}) {
  const a = await maakAdres(db, o);
  await db.wozWaarde.createMany({
    data: [
      { adresId: a.id, peildatum: new Date('2024-01-01'), waarde: 400000, bron: 'testdata' },
      { adresId: a.id, peildatum: new Date('2025-01-01'), waarde: 425000, bron: 'testdata' },
    ],
  });
  await db.energielabel.create({
    data: { adresId: a.id, label: 'B', registratiedatum: new Date('2021-03-04'), geldigTot: new Date('2031-03-04'), opnametype: 'Basisopname', energieIndex: 1.23, bron: 'testdata' },
  });
  await db.woningtype.create({ data: { adresId: a.id, woningtype: 'tussenwoning', afgeleidUit: 'test', bron: 'testdata' } });
  await db.adresInvloed.createMany({
    data: [
      { adresId: a.id, type: 'natura2000', indicator: 'groen', afstandM: 1800, omschrijving: 'Ver van Natura 2000.', bron: 'testdata' },
      { adresId: a.id, type: 'hoogspanning', indicator: 'oranje', afstandM: 120, omschrijving: 'Hoogspanningslijn op 120 m.', bron: 'testdata' },
    ],
  });
  return a;
}

export function adresBody(a: { postcode: string; huisnummer: number }, toevoeging?: string) {
  return { adres: { postcode: a.postcode, huisnummer: String(a.huisnummer), ...(toevoeging !== undefined ? { toevoeging } : {}) } };
}
