/**
 * Curated demo addresses for the README and manual tests: one per case. DEMO_ADRESSEN is the
 * result of `kiesDemoAdressen(await generateDemoDataset(1))`, written out so docs can quote it;
 * test/register-data/demo.test.ts checks that the two agree and that each address really shows
 * its case.
 */
import type { DemoDataset } from './genereer.ts';

export type DemoGeval =
  | 'waardering'
  | 'appartement'
  | 'te-weinig-verkopen'
  | 'geen-energielabel'
  | 'geen-woz'
  | 'meerduidige-toevoeging'
  | 'letter-of-toevoeging'
  | 'natura2000-rood'
  | 'natura2000-oranje'
  | 'hoogspanning-rood'
  | 'hoogspanning-oranje'
  | 'invloeden-groen';

export interface DemoAdres {
  geval: DemoGeval;
  /** Dutch: what the caller should see. */
  uitleg: string;
  postcode: string;
  huisnummer: number;
  huisletter: string | null;
  toevoeging: string | null;
  /** As written on a letter, e.g. 'Maantulpstraat 12, 7780 SA Verzonnenveen'. */
  weergave: string;
}

export const DEMO_UITLEG: Record<DemoGeval, string> = {
  waardering: 'Gewone tussenwoning met veel verkopen in de buurt: marktwaarde, WOZ, energielabel, woningtype en invloeden.',
  appartement: 'Appartement (huisnummer met toevoeging) in het Havenkwartier: waardering in het appartementensegment.',
  'te-weinig-verkopen': 'Boerderij in het afgelegen gehucht Nergenshuizen: te weinig verkopen in de omgeving, de waardering weigert (422).',
  'geen-energielabel': 'Woning zonder geregistreerd energielabel: het energielabelantwoord is leeg.',
  'geen-woz': 'Woning zonder WOZ-waarde in de dataset: het WOZ-antwoord is leeg.',
  'meerduidige-toevoeging': 'Postcode en huisnummer zonder toevoeging bij een gebouw met meerdere toevoegingen: meerduidig, de API vraagt welke.',
  'letter-of-toevoeging': 'Er bestaan zowel huisletter A (9A) als toevoeging A (9-A) bij dit huisnummer: toevoeging "A" geeft de huisletter, "-A" de huisnummertoevoeging.',
  'natura2000-rood': 'Ligt binnen Natura 2000-gebied Denkbeeldig Ven: indicator rood, afstand 0 m.',
  'natura2000-oranje': 'Ligt binnen 250 m van Natura 2000-gebied Denkbeeldig Ven: indicator oranje.',
  'hoogspanning-rood': 'Ligt binnen 50 m van de Denkbeeldlijn (150 kV): indicator rood.',
  'hoogspanning-oranje': 'Ligt tussen 50 en 250 m van de Denkbeeldlijn: indicator oranje.',
  'invloeden-groen': 'Ver van natuurgebied en hoogspanning: beide indicatoren groen.',
};

export function weergave(straat: string, huisnummer: number, huisletter: string | null, toevoeging: string | null, postcode: string, woonplaats: string): string {
  const nr = `${huisnummer}${huisletter ?? ''}${toevoeging ? `-${toevoeging}` : ''}`;
  return `${straat} ${nr}, ${postcode.slice(0, 4)} ${postcode.slice(4)} ${woonplaats}`;
}

/** Pick one address per case from a generated dataset (deterministic: first match in id order). */
export function kiesDemoAdressen(ds: DemoDataset): DemoAdres[] {
  const metLabel = new Set(ds.energielabel.map((r) => r.adres_id));
  const metWoz = new Set(ds.woz_waarde.map((r) => r.adres_id));
  const type = new Map(ds.woningtype.map((r) => [r.adres_id, r.woningtype]));
  const invloed = new Map<string, Record<string, string>>();
  for (const r of ds.adres_invloed) {
    let m = invloed.get(r.adres_id);
    if (!m) invloed.set(r.adres_id, (m = {}));
    m[r.type] = r.indicator;
  }
  const inGebruik = ds.adres.filter((a) => a.status === 'Verblijfsobject in gebruik');
  const compleet = (id: string) => metLabel.has(id) && metWoz.has(id);
  const kleur = (id: string, n: string, h: string) => invloed.get(id)?.natura2000 === n && invloed.get(id)?.hoogspanning === h;
  const uit: DemoAdres[] = [];
  const voeg = (geval: DemoGeval, a: (typeof ds.adres)[number] | undefined, zonderToevoeging = false) => {
    if (!a) throw new Error(`geen demo-adres voor geval ${geval}`);
    const huisletter = zonderToevoeging ? null : a.huisletter;
    const toevoeging = zonderToevoeging ? null : a.toevoeging;
    uit.push({
      geval,
      uitleg: DEMO_UITLEG[geval],
      postcode: a.postcode,
      huisnummer: a.huisnummer,
      huisletter,
      toevoeging,
      weergave: weergave(a.straat, a.huisnummer, huisletter, toevoeging, a.postcode, a.woonplaats),
    });
  };
  voeg('waardering', inGebruik.find((a) => a.straat === 'Maantulpstraat' && type.get(a.id) === 'tussenwoning' && compleet(a.id) && kleur(a.id, 'groen', 'groen')));
  voeg('appartement', inGebruik.find((a) => a.buurt_code === 'BU99990102' && type.get(a.id) === 'appartement' && a.toevoeging !== null && compleet(a.id) && kleur(a.id, 'groen', 'groen')));
  voeg('te-weinig-verkopen', inGebruik.find((a) => a.woonplaats === 'Nergenshuizen' && compleet(a.id)));
  voeg('geen-energielabel', inGebruik.find((a) => a.buurt_code === 'BU99990401' && type.get(a.id) === 'tussenwoning' && !metLabel.has(a.id) && metWoz.has(a.id) && kleur(a.id, 'groen', 'groen')));
  voeg('geen-woz', inGebruik.find((a) => a.buurt_code === 'BU99990301' && type.get(a.id) === 'twee-onder-een-kap' && !metWoz.has(a.id) && metLabel.has(a.id)));
  // A building with several toevoegingen and no address without one.
  const perNummer = new Map<string, typeof ds.adres>();
  for (const a of ds.adres) {
    const k = `${a.postcode}|${a.huisnummer}`;
    let l = perNummer.get(k);
    if (!l) perNummer.set(k, (l = []));
    l.push(a);
  }
  voeg(
    'meerduidige-toevoeging',
    inGebruik.find((a) => {
      const l = perNummer.get(`${a.postcode}|${a.huisnummer}`)!;
      return a.buurt_code === 'BU99990102' && a.toevoeging === '1' && l.length >= 6 && l.every((x) => x.toevoeging !== null);
    }),
    true,
  );
  const dubbel = ds.adres.find((a) => a.toevoeging === 'A' && a.huisletter === null && perNummer.get(`${a.postcode}|${a.huisnummer}`)!.some((x) => x.huisletter === 'A'));
  if (!dubbel) throw new Error('geen demo-adres voor geval letter-of-toevoeging');
  uit.push({
    geval: 'letter-of-toevoeging',
    uitleg: DEMO_UITLEG['letter-of-toevoeging'],
    postcode: dubbel.postcode,
    huisnummer: dubbel.huisnummer,
    huisletter: null,
    toevoeging: 'A',
    weergave: `${dubbel.straat} ${dubbel.huisnummer} A, ${dubbel.postcode.slice(0, 4)} ${dubbel.postcode.slice(4)} ${dubbel.woonplaats}`,
  });
  const woning = (a: (typeof ds.adres)[number]) => type.get(a.id) !== 'overig' && compleet(a.id);
  voeg('natura2000-rood', inGebruik.find((a) => woning(a) && kleur(a.id, 'rood', 'groen')));
  voeg('natura2000-oranje', inGebruik.find((a) => woning(a) && a.woonplaats === 'Verzonnenveen' && kleur(a.id, 'oranje', 'groen')));
  voeg('hoogspanning-rood', inGebruik.find((a) => woning(a) && kleur(a.id, 'groen', 'rood')));
  voeg('hoogspanning-oranje', inGebruik.find((a) => woning(a) && kleur(a.id, 'groen', 'oranje')));
  voeg('invloeden-groen', inGebruik.find((a) => a.buurt_code === 'BU99990302' && type.get(a.id) === 'vrijstaand' && compleet(a.id) && kleur(a.id, 'groen', 'groen')));
  return uit;
}

function d(geval: DemoGeval, postcode: string, huisnummer: number, huisletter: string | null, toevoeging: string | null, weergave: string): DemoAdres {
  return { geval, uitleg: DEMO_UITLEG[geval], postcode, huisnummer, huisletter, toevoeging, weergave };
}

/** kiesDemoAdressen(generateDemoDataset(1)), written out. */
export const DEMO_ADRESSEN: readonly DemoAdres[] = [
  d('waardering', '7800SD', 3, null, null, 'Maantulpstraat 3, 7800 SD Verzonnenveen'),
  d('appartement', '7766SS', 1, null, '2', 'Luchtkastelenkade 1-2, 7766 SS Verzonnenveen'),
  d('te-weinig-verkopen', '8091SD', 1, null, null, 'Nergenshuizerdijk 1, 8091 SD Nergenshuizen'),
  d('geen-energielabel', '8005SD', 45, null, null, 'Denkbeeldstraat 45, 8005 SD Verzonnenveen'),
  d('geen-woz', '7927SA', 49, null, null, 'Utopiasingel 49, 7927 SA Verzonnenveen'),
  d('meerduidige-toevoeging', '7766SS', 1, null, null, 'Luchtkastelenkade 1, 7766 SS Verzonnenveen'),
  d('letter-of-toevoeging', '7731SD', 9, null, 'A', 'Demostraat 9 A, 7731 SD Verzonnenveen'),
  d('natura2000-rood', '7923SS', 137, null, null, 'Luilekkerlandlaan 137, 7923 SS Verzonnenveen'),
  d('natura2000-oranje', '7922SS', 73, null, null, 'Luilekkerlandlaan 73, 7922 SS Verzonnenveen'),
  d('hoogspanning-rood', '7891SA', 1, null, null, 'Drakenhof 1, 7891 SA Verzonnenveen'),
  d('hoogspanning-oranje', '7891SA', 7, null, null, 'Drakenhof 7, 7891 SA Verzonnenveen'),
  d('invloeden-groen', '7991SD', 7, null, null, 'Droomhoevelaan 7, 7991 SD Verzonnenveen'),
];
