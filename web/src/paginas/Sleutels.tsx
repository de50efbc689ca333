import { useEffect, useState } from 'preact/hooks';
import { api, foutTekst } from '../api.ts';
import { useActie } from '../actie.ts';
import { fmtAantal, fmtDatum, fmtDatumTijd, fmtGetal, fmtMaand } from '../opmaak.ts';
import { EenmaligGetoond } from '../EenmaligGetoond.tsx';
import { Tabel } from '../Tabel.tsx';

type Sleutel = Awaited<ReturnType<typeof api.sleutels.lijst.query>>[number];
interface Getoond {
  id: string;
  sleutel: string;
  voorvoegsel: string;
  verloopt_op: string;
  reden: string;
}

const LOOPTIJDEN = [
  { dagen: 30, tekst: '30 dagen' },
  { dagen: 90, tekst: '90 dagen' },
  { dagen: 180, tekst: '6 maanden' },
  { dagen: 365, tekst: '1 jaar' },
  { dagen: 730, tekst: '2 jaar' },
];
/** The highest monthly cap the server takes (src/domain/keys/sleutels.ts); above it the field says so itself. */
const MAX_MAANDLIMIET = 1_000_000_000;
const STATUS: Record<Sleutel['status'], string> = { geldig: 'Geldig', ingetrokken: 'Ingetrokken', verlopen: 'Verlopen' };

export function Sleutels() {
  const [lijst, setLijst] = useState<Sleutel[] | null>(null);
  const [naam, setNaam] = useState('');
  const [looptijd, setLooptijd] = useState(365);
  const [test, setTest] = useState(false);
  const [limieten, setLimieten] = useState<Record<string, string>>({});
  const [getoond, setGetoond] = useState<Getoond | null>(null);

  const { bezig, fout, setFout, status, setStatus, actie, foutRef, statusRef } = useActie(() => laad());
  const laad = () => api.sleutels.lijst.query().then(setLijst).catch((err) => setFout(foutTekst(err)));
  useEffect(() => void laad(), []);

  const maak = (e: Event) => {
    e.preventDefault();
    return actie(async () => {
      const k = await api.sleutels.maak.mutate({ naam, looptijd_dagen: looptijd, test });
      setGetoond({ ...k, reden: test ? `Nieuwe testsleutel '${naam}'` : `Nieuwe sleutel '${naam}'` });
      setNaam('');
      setTest(false);
    });
  };

  const roteer = (s: Sleutel) => {
    if (!confirm(`Sleutel '${s.naam}' (${s.voorvoegsel}…) vervangen? De oude sleutel stopt meteen.`)) return;
    return actie(async () => {
      const k = await api.sleutels.roteer.mutate({ id: s.id });
      setGetoond({ ...k, reden: `Vervangende sleutel voor '${s.naam}'` });
    });
  };

  const trekIn = (s: Sleutel) => {
    if (!confirm(`Sleutel '${s.naam}' (${s.voorvoegsel}…) intrekken? Dit kan niet ongedaan worden.`)) return;
    return actie(async () => {
      await api.sleutels.trekIn.mutate({ id: s.id });
      setGetoond((g) => (g?.id === s.id ? null : g));
      setStatus(`Sleutel '${s.naam}' is ingetrokken.`);
    });
  };

  const zetLimiet = (s: Sleutel, e: Event) => {
    e.preventDefault();
    const tekst = (limieten[s.id] ?? '').trim();
    if (!/^\d{1,10}$/.test(tekst)) {
      setFout('Maandlimiet: vul een geheel aantal credits in (0 of meer).');
      return;
    }
    return actie(async () => {
      await api.sleutels.maandlimiet.mutate({ id: s.id, credits: Number(tekst) });
      setLimieten({ ...limieten, [s.id]: '' });
      setStatus(`Sleutel '${s.naam}': hoogstens ${fmtAantal(Number(tekst), 'credit')} per kalendermaand.`);
    });
  };

  const wisLimiet = (s: Sleutel) =>
    actie(async () => {
      await api.sleutels.maandlimiet.mutate({ id: s.id, credits: null });
      setStatus(`Sleutel '${s.naam}': geen maandlimiet meer.`);
    });

  const geldig = lijst?.filter((s) => s.status === 'geldig' && s.familie === 'inzicht' && s.modus === 'live').length ?? 0;
  const geldigTest = lijst?.filter((s) => s.status === 'geldig' && s.modus === 'test').length ?? 0;

  return (
    <>
      <h1 tabIndex={-1}>Sleutels</h1>
      <p>
        Met een API-sleutel roep je de Insight API aan (REST of MCP). Een account heeft hoogstens 10 geldige live sleutels (nu {geldig}) en daarnaast 5
        testsleutels (nu {geldigTest}). Zie de <a href="/docs">documentatie</a> voor voorbeelden.
      </p>
      <p>
        Een <strong>testsleutel</strong> (<code>pct_test_…</code>) kost niets en beweegt je saldo niet, maar kent alleen de adressen van de synthetische
        demogemeente Fictiedal (Verzonnenveen, Nergenshuizen; postcodes met de letters SA, SD of SS, bijvoorbeeld 7800 SD huisnummer 3); antwoorden en webhooks zeggen <code>test: true</code>.
        Een <strong>maandlimiet</strong> begrenst wat één live sleutel per kalendermaand mag verbruiken; daarboven antwoordt de API 402 en blijft je saldo onaangeroerd.
      </p>
      {fout && <p class="fout" role="alert" ref={foutRef}>{fout}</p>}
      <p role="status" class="status" ref={statusRef}>{status}</p>

      {getoond && (
        <EenmaligGetoond id="nieuwe-sleutel" titel={getoond.reden} label="Sleutel" waarde={getoond.sleutel} klaar={() => setGetoond(null)} naSluiten="kop-lijst" bewaardTekst="Ik heb hem bewaard">
          <strong>Kopieer deze sleutel nu: hij wordt maar één keer getoond.</strong> Wij bewaren alleen een hash. Geldig tot {fmtDatum(getoond.verloopt_op)}.
        </EenmaligGetoond>
      )}

      <section aria-labelledby="kop-maak">
        <h2 id="kop-maak">Nieuwe sleutel</h2>
        <form class="formulier" onSubmit={maak}>
          <div>
            <label for="sleutel-naam">Naam</label>
            <input id="sleutel-naam" required maxLength={100} value={naam} onInput={(e) => setNaam(e.currentTarget.value)} placeholder="bijv. productie" />
          </div>
          <div>
            <label for="sleutel-looptijd">Geldig</label>
            <select id="sleutel-looptijd" value={looptijd} onChange={(e) => setLooptijd(Number(e.currentTarget.value))}>
              {LOOPTIJDEN.map((l) => (
                <option key={l.dagen} value={l.dagen}>{l.tekst}</option>
              ))}
            </select>
          </div>
          <div>
            <label for="sleutel-test">
              <input id="sleutel-test" type="checkbox" checked={test} onChange={(e) => setTest(e.currentTarget.checked)} /> Testsleutel (alleen demoplaats, gratis)
            </label>
          </div>
          <button type="submit" disabled={bezig || !naam.trim()}>Sleutel maken</button>
        </form>
      </section>

      <section aria-labelledby="kop-lijst">
        <h2 id="kop-lijst">Jouw sleutels</h2>
        {lijst && lijst.length === 0 && <p>Nog geen sleutels.</p>}
        <Tabel kop="kop-lijst" klasse="sleutels" kolommen={['Naam', 'Begint met', 'Soort en rechten', 'Maandlimiet', 'Gemaakt', 'Laatst gebruikt', 'Verloopt', 'Status', { titel: 'Acties', verborgen: true }]}>
          {lijst?.map((s) => (
            <tr key={s.id} data-voorvoegsel={s.voorvoegsel} data-status={s.status}>
              <td>{s.naam}</td>
              <td><code>{s.voorvoegsel}…</code></td>
              <td>
                <div>
                  {s.familie}: {s.rechten.join(', ')}
                  {s.modus === 'test' && <> <span class="label label-test">test</span></>}
                </div>
              </td>
              <td class="maandlimiet">
                <div>
                  {s.maandlimiet ? (
                    <span data-maandlimiet={s.maandlimiet.credits}>
                      {s.status === 'geldig'
                        ? `${fmtGetal(s.maandlimiet.resterend)} van ${fmtAantal(s.maandlimiet.credits, 'credit')} over in ${fmtMaand(s.maandlimiet.maand)}`
                        : `${fmtAantal(s.maandlimiet.credits, 'credit')} per maand`}
                    </span>
                  ) : s.modus === 'test' ? (
                    'n.v.t. (gratis)'
                  ) : (
                    'geen'
                  )}
                  {s.status === 'geldig' && s.familie === 'inzicht' && s.modus === 'live' && (
                    <form class="limiet-formulier" onSubmit={(e) => zetLimiet(s, e)}>
                      <input
                        type="number"
                        min={0}
                        max={MAX_MAANDLIMIET}
                        step={1}
                        inputMode="numeric"
                        value={limieten[s.id] ?? ''}
                        onInput={(e) => setLimieten({ ...limieten, [s.id]: e.currentTarget.value })}
                        aria-label={`Maandlimiet in credits voor sleutel ${s.naam} (${s.voorvoegsel})`}
                        placeholder="credits"
                      />
                      <button type="submit" class="knop-secundair" disabled={bezig}>Zetten</button>
                      {s.maandlimiet && (
                        <button type="button" class="knop-secundair" disabled={bezig} onClick={() => wisLimiet(s)} aria-label={`Maandlimiet van sleutel ${s.naam} (${s.voorvoegsel}) wissen`}>
                          Wissen
                        </button>
                      )}
                    </form>
                  )}
                </div>
              </td>
              <td>{fmtDatum(s.aangemaakt_op)}</td>
              <td>{fmtDatumTijd(s.laatst_gebruikt_op)}</td>
              <td>{fmtDatum(s.verloopt_op)}</td>
              <td><span class={`label label-${s.status}`}>{STATUS[s.status]}</span></td>
              <td class="acties">
                {s.status === 'geldig' && (
                  <>
                    <button type="button" class="knop-secundair" disabled={bezig} onClick={() => roteer(s)} aria-label={`Sleutel ${s.naam} (${s.voorvoegsel}) vervangen`}>Vervangen</button>
                    <button type="button" class="knop-gevaar" disabled={bezig} onClick={() => trekIn(s)} aria-label={`Sleutel ${s.naam} (${s.voorvoegsel}) intrekken`}>Intrekken</button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </Tabel>
      </section>
    </>
  );
}
