/**
 * The fixed plan of the fictional municipality Fictiedal: its neighbourhoods, street names and
 * influence objects. Everything here is invented; names are chosen to be obviously fictional.
 *
 * Location: the town centre lies at RD (206000, 489000), in Salland (Overijssel), ~52.39 N 6.14 E;
 * the hamlet Nergenshuizen 13.6 km to the north-east. The buildings are laid out over whatever is
 * really there — only the coordinates are realistic, nothing else.
 *
 * Postcodes use the letter pairs SA, SD and SS, which PostNL never issues, so a demo postcode can
 * never be mistaken for (or collide with) a real address.
 */

export const DEMO_BRON = 'synthetisch demo-dataset (fictief) v1';

/** `prijsindex.regio` of the demo's index rows (a real national series is 'NL'). */
export const DEMO_INDEX_REGIO = 'NL-demo';

export const DEMO_LETTERPAREN: readonly string[] = ['SA', 'SD', 'SS'];

/** `postcode` as the input schema normalises it: `1234AB`. */
export function isDemoPostcode(postcode: string): boolean {
  return DEMO_LETTERPAREN.includes(postcode.slice(4, 6).toUpperCase());
}

/**
 * The demo town lives in every register beside the real data, and neither may colour the other: the
 * valuation learns from each part's own sales, and the derivations (house type, influences) leave the
 * demo's rows as generated and never let a demo building or object reach a real address.
 * Every row of the demo carries `bron = DEMO_BRON`.
 */
export type Deel = 'demo' | 'register';

export function deelVan(bron: string | null | undefined): Deel {
  return bron === DEMO_BRON ? 'demo' : 'register';
}

/** RD New (EPSG:28992) coordinates of the town centre. */
export const CENTRUM_RD: readonly [number, number] = [206000, 489000];

export const GEMEENTE = { naam: 'Fictiedal', code: '9999' } as const;

/** Building kinds a neighbourhood is made of. */
export type Bouwsoort = 'rij' | 'twee' | 'vrij' | 'app' | 'winkel' | 'bedrijf';

/** How the homes of an apartment building are numbered. */
export type AppStijl = 'toevoeging' | 'huisnummers' | 'portiek';

export interface BuurtDef {
  /** Last four digits of the CBS buurt code: wijk (2) + buurt (2). */
  code: string;
  naam: string;
  wijk: string;
  wijkNaam: string;
  woonplaats: string;
  /** Centre, metres east/north of CENTRUM_RD. */
  midden: readonly [number, number];
  breedte: number;
  hoogte: number;
  /** Distance between parallel streets (m). */
  straatAfstand: number;
  mix: Readonly<Partial<Record<Bouwsoort, number>>>;
  bouwjaar: readonly [number, number];
  /** Neighbourhood price effect (log). */
  effect: number;
  appStijl: AppStijl;
  /** Floors of apartment buildings. */
  lagen: readonly [number, number];
  /** Living area of apartments (m2). */
  appOpp: readonly [number, number];
  straten: readonly string[];
}

export const BUURTEN: readonly BuurtDef[] = [
  {
    code: '0101',
    naam: 'Oude Kern',
    wijk: '01',
    wijkNaam: 'Centrum',
    woonplaats: 'Verzonnenveen',
    midden: [0, 0],
    breedte: 700,
    hoogte: 600,
    straatAfstand: 60,
    mix: { winkel: 40, rij: 30, app: 10, bedrijf: 5 },
    bouwjaar: [1880, 1935],
    effect: 0.1,
    appStijl: 'toevoeging',
    lagen: [2, 4],
    appOpp: [42, 100],
    straten: [
      'Demostraat',
      'Verzinselsteeg',
      'Fictiemarkt',
      'Schijnkerkplein',
      'Fabelgracht',
      'Mythekade',
      'Proefstraat',
      'Voorbeeldsteeg',
      'Testgracht',
      'Nergensstraat',
      'Ergenssteeg',
      'Nooitgedachtstraat',
    ],
  },
  {
    code: '0102',
    naam: 'Havenkwartier',
    wijk: '01',
    wijkNaam: 'Centrum',
    woonplaats: 'Verzonnenveen',
    midden: [750, 0],
    breedte: 600,
    hoogte: 500,
    straatAfstand: 90,
    mix: { app: 80, rij: 15, bedrijf: 5 },
    bouwjaar: [1998, 2012],
    effect: 0.05,
    appStijl: 'toevoeging',
    lagen: [4, 7],
    appOpp: [55, 130],
    straten: [
      'Luchtkastelenkade',
      'Papierenbootkade',
      'Zeemeerminkade',
      'Spookschipstraat',
      'Vliegende Hollanderweg',
      'Atlantiskade',
      'Schateilandstraat',
      'Kapitein Verzinselplein',
    ],
  },
  {
    code: '0201',
    naam: 'Bloemenbuurt',
    wijk: '02',
    wijkNaam: 'Noord',
    woonplaats: 'Verzonnenveen',
    midden: [0, 800],
    breedte: 1000,
    hoogte: 800,
    straatAfstand: 70,
    mix: { rij: 80, twee: 12, app: 3 },
    bouwjaar: [1950, 1965],
    effect: -0.08,
    appStijl: 'portiek',
    lagen: [3, 4],
    appOpp: [55, 80],
    straten: [
      'Toverroosstraat',
      'Maantulpstraat',
      'Wolkenleliestraat',
      'Sterrenviooltjesstraat',
      'Glazen Klaproosstraat',
      'Regenboogasterstraat',
      'Zilverdistelstraat',
      'Nachtzonnebloemstraat',
      'Fluisteranjerstraat',
      'Droomdahliastraat',
      'Elfenkelkstraat',
      'Feeënvingerhoedstraat',
    ],
  },
  {
    code: '0202',
    naam: 'Flatwijk De Luchtspiegeling',
    wijk: '02',
    wijkNaam: 'Noord',
    woonplaats: 'Verzonnenveen',
    midden: [1000, 800],
    breedte: 800,
    hoogte: 800,
    straatAfstand: 100,
    mix: { app: 60, rij: 35, bedrijf: 3 },
    bouwjaar: [1964, 1976],
    effect: -0.15,
    appStijl: 'huisnummers',
    lagen: [3, 6],
    appOpp: [58, 88],
    straten: [
      'Wolkenkoekoeksweg',
      'Hemelbestormerslaan',
      'Luchtspiegelinglaan',
      'Fata Morganastraat',
      'Zeepbellaan',
      'Schijngestaltelaan',
      'Hoogvliegerslaan',
      'Ivoren Torenlaan',
    ],
  },
  {
    code: '0203',
    naam: 'Sprookjeshof',
    wijk: '02',
    wijkNaam: 'Noord',
    woonplaats: 'Verzonnenveen',
    midden: [-1000, 800],
    breedte: 800,
    hoogte: 800,
    straatAfstand: 70,
    mix: { rij: 60, twee: 25, vrij: 6, app: 4 },
    bouwjaar: [1975, 1988],
    effect: -0.03,
    appStijl: 'portiek',
    lagen: [3, 4],
    appOpp: [65, 95],
    straten: [
      'Drakenhof',
      'Kabouterpad',
      'Eenhoornhof',
      'Reuzenpad',
      'Trollenhof',
      'Feeënpad',
      'Toverstafhof',
      'Heksenketelpad',
      'Griffioenhof',
      'Elfenpad',
      'Weerwolfhof',
      'Zevenmijlslaarzenpad',
    ],
  },
  {
    code: '0301',
    naam: 'Vinexpark Verzinsel',
    wijk: '03',
    wijkNaam: 'Oost',
    woonplaats: 'Verzonnenveen',
    midden: [2050, 0],
    breedte: 1100,
    hoogte: 1240,
    straatAfstand: 80,
    mix: { rij: 50, twee: 28, vrij: 6, app: 8 },
    bouwjaar: [1996, 2010],
    effect: 0.02,
    appStijl: 'toevoeging',
    lagen: [3, 6],
    appOpp: [65, 120],
    straten: [
      'Luilekkerlandlaan',
      'Utopiasingel',
      'Arcadiastraat',
      'Lilliputlaan',
      'Brobdingnagstraat',
      'Laputasingel',
      'Eldoradolaan',
      'Avalonstraat',
      'Lemuriësingel',
      'Hyperboreastraat',
      'Thulelaan',
      'Erewhonstraat',
      'Ruritaniësingel',
      'Atlantislaan',
      'Cocagnestraat',
      'Zemblasingel',
      'Oostland-van-Nergenslaan',
      'Wolkenkoekoekslandstraat',
    ],
  },
  {
    code: '0302',
    naam: 'Villapark Droomhoeve',
    wijk: '03',
    wijkNaam: 'Oost',
    woonplaats: 'Verzonnenveen',
    midden: [750, -1000],
    breedte: 1300,
    hoogte: 700,
    straatAfstand: 100,
    mix: { vrij: 70, twee: 25, app: 3 },
    bouwjaar: [1925, 2020],
    effect: 0.14,
    appStijl: 'toevoeging',
    lagen: [2, 3],
    appOpp: [90, 160],
    straten: [
      'Droomhoevelaan',
      'Dagdroomdreef',
      'Slaapwandelaarsdreef',
      'Zandmannetjesdreef',
      'Luchtkasteellaan',
      'Mijmerdreef',
      'Fantasielaan',
      'Verbeeldingsdreef',
      'Sterrenwensdreef',
    ],
  },
  {
    code: '0401',
    naam: 'Denkbeeldwijk',
    wijk: '04',
    wijkNaam: 'Zuid',
    woonplaats: 'Verzonnenveen',
    midden: [-700, -1000],
    breedte: 1000,
    hoogte: 700,
    straatAfstand: 70,
    mix: { rij: 70, twee: 20, app: 6 },
    bouwjaar: [1970, 1985],
    effect: -0.05,
    appStijl: 'portiek',
    lagen: [3, 4],
    appOpp: [60, 90],
    straten: [
      'Denkbeeldstraat',
      'Hersenspinselstraat',
      'Gedachtespinselstraat',
      'Ideeënstraat',
      'Inbeeldingstraat',
      'Waanbeeldstraat',
      'Schimmenstraat',
      'Spiegelbeeldstraat',
      'Drogbeeldstraat',
      'Schijnbeeldstraat',
      'Droombeeldstraat',
      'Visioenstraat',
    ],
  },
  {
    code: '0402',
    naam: 'Nieuwbouw De Hersenschim',
    wijk: '04',
    wijkNaam: 'Zuid',
    woonplaats: 'Verzonnenveen',
    midden: [-600, -1850],
    breedte: 1200,
    hoogte: 700,
    straatAfstand: 75,
    mix: { rij: 45, twee: 25, vrij: 10, app: 12 },
    bouwjaar: [2015, 2026],
    effect: 0.08,
    appStijl: 'toevoeging',
    lagen: [3, 6],
    appOpp: [60, 125],
    straten: [
      'Hersenschimlaan',
      'Fictiefhof',
      'Verzonnenpad',
      'Bedachtlaan',
      'Gefantaseerdhof',
      'Ingebeeldlaan',
      'Onechtpad',
      'Nepdreef',
      'Kartonnenlaan',
      'Decorhof',
    ],
  },
  {
    code: '0403',
    naam: 'Bedrijventerrein Proefpolder',
    wijk: '04',
    wijkNaam: 'Zuid',
    woonplaats: 'Verzonnenveen',
    midden: [-1150, 0],
    breedte: 900,
    hoogte: 600,
    straatAfstand: 120,
    mix: { bedrijf: 88, vrij: 12 },
    bouwjaar: [1975, 2010],
    effect: -0.06,
    appStijl: 'toevoeging',
    lagen: [2, 3],
    appOpp: [60, 90],
    straten: ['Proefpolderweg', 'Demonstratieweg', 'Prototypeweg', 'Maquetteweg', 'Testbankweg', 'Simulatorweg', 'Modelbouwweg'],
  },
];

/** The far-away hamlet: a handful of farmhouses along one dike road, with hardly any sales. */
export const GEHUCHT = {
  code: '0501',
  naam: 'Nergenshuizen',
  wijk: '05',
  wijkNaam: 'Buitengebied',
  woonplaats: 'Nergenshuizen',
  midden: [11000, 8000] as const,
  straat: 'Nergenshuizerdijk',
  aantal: 14,
  bouwjaar: [1890, 1975] as const,
  effect: -0.05,
};

export interface InvloedDef {
  id: string;
  type: 'natura2000' | 'hoogspanning';
  naam: string;
  /** Polygon parts (outer ring [+ holes]) as RD offsets; or a line. */
  vlakken?: { midden: [number, number]; straal: number; harmonischen: [number, number, number][]; gat?: number }[];
  lijn?: [number, number][];
}

/**
 * Influence objects, fixed (independent of the seed) so every colour always occurs:
 * Denkbeeldig Ven overlaps the south-east corner of Vinexpark Verzinsel (rood inside, oranje
 * nearby); Denkbeeldlijn runs along the west edge of Denkbeeldwijk and Sprookjeshof (rood within
 * 50 m, oranje within 250 m); Luchtkastelenbos (with a hole) lies beside the hamlet.
 */
export const INVLOED_DEFS: readonly InvloedDef[] = [
  {
    id: 'demo-natura2000-denkbeeldig-ven',
    type: 'natura2000',
    naam: 'Denkbeeldig Ven (fictief)',
    vlakken: [{ midden: [3550, -1450], straal: 1350, harmonischen: [[3, 0.08, 0.4], [5, 0.05, 1.3], [7, 0.03, 2.2]] }],
  },
  {
    id: 'demo-natura2000-fantasieheide',
    type: 'natura2000',
    naam: 'Fantasieheide (fictief)',
    vlakken: [
      { midden: [3600, 3100], straal: 900, harmonischen: [[2, 0.1, 0.7], [5, 0.04, 0.1]] },
      { midden: [5300, 3900], straal: 600, harmonischen: [[3, 0.07, 1.9]] },
    ],
  },
  {
    id: 'demo-natura2000-luchtkastelenbos',
    type: 'natura2000',
    naam: 'Luchtkastelenbos (fictief)',
    vlakken: [{ midden: [11650, 8150], straal: 450, harmonischen: [[4, 0.06, 0.5]], gat: 120 }],
  },
  {
    id: 'demo-hoogspanning-denkbeeldlijn',
    type: 'hoogspanning',
    naam: 'Denkbeeldlijn 150 kV (fictief)',
    lijn: [
      [-3300, -3500],
      [-1230, -1700],
      [-1230, -300],
      [-1680, 1500],
      [-2600, 4300],
    ],
  },
  {
    id: 'demo-hoogspanning-hersenschimlijn',
    type: 'hoogspanning',
    naam: 'Hersenschimlijn 380 kV (fictief)',
    lijn: [
      [6500, -7000],
      [7100, 0],
      [7600, 6500],
    ],
  },
];
