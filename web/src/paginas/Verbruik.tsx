import { useEffect, useState } from 'preact/hooks';
import { api, foutTekst } from '../api.ts';
import { Bladeren } from '../Bladeren.tsx';
import { DATUM_VORM, DatumVeld, naarIso } from '../DatumVeld.tsx';
import { Grafiek, type DagRegel } from '../Grafiek.tsx';
import { dagenTerug, fmtDatumTijd, fmtEuro, fmtGetal, vandaag, VOORZIENINGEN } from '../opmaak.ts';
import { Tabel } from '../Tabel.tsx';
import { MAX_PERIODE_DAGEN } from '../../../src/domain/billing/periode.ts';

type Lijst = Awaited<ReturnType<typeof api.verbruik.lijst.query>>;
type Sleutel = Awaited<ReturnType<typeof api.sleutels.lijst.query>>[number];
type Uitkomst = 'alle' | 'geslaagd' | 'mislukt';

interface Filters {
  van: string;
  tot: string;
  voorziening: string;
  uitkomst: Uitkomst;
  sleutel_id: string;
}

const PER_PAGINA = 50;

function invoer(f: Filters) {
  return {
    van: f.van,
    tot: f.tot,
    uitkomst: f.uitkomst,
    ...(f.voorziening ? { voorziening: f.voorziening } : {}),
    ...(f.sleutel_id ? { sleutel_id: f.sleutel_id } : {}),
  };
}

/** Written by the server page by page and saved to disk by the browser: no size holds the page up. */
function exportAdres(f: Filters): string {
  return `/app/verbruik.csv?${new URLSearchParams(invoer(f))}`;
}

export function Verbruik() {
  const [filters, setFilters] = useState<Filters>({ van: dagenTerug(29), tot: vandaag(), voorziening: '', uitkomst: 'alle', sleutel_id: '' });
  const [concept, setConcept] = useState<Filters>(filters);
  const [pagina, setPagina] = useState(1);
  const [lijst, setLijst] = useState<Lijst | null>(null);
  const [perDag, setPerDag] = useState<DagRegel[] | 'mislukt' | null>(null);
  const [sleutels, setSleutels] = useState<Sleutel[]>([]);
  const [fout, setFout] = useState('');

  useEffect(() => {
    api.sleutels.lijst.query().then(setSleutels).catch(() => {});
  }, []);

  // A refused or failed period shows no rows, chart or export of the one before; a late answer is dropped.
  useEffect(() => {
    let weg = false;
    setFout('');
    api.verbruik.lijst
      .query({ ...invoer(filters), pagina, per_pagina: PER_PAGINA })
      .then((l) => !weg && setLijst(l))
      .catch((err) => {
        if (weg) return;
        setLijst(null);
        setFout(foutTekst(err));
      });
    return () => {
      weg = true;
    };
  }, [filters, pagina]);

  useEffect(() => {
    let weg = false;
    setPerDag(null);
    api.verbruik.perDag
      .query(invoer(filters))
      .then((p) => !weg && setPerDag(p.per_dag))
      .catch((err) => {
        if (weg) return;
        setPerDag('mislukt');
        setFout(foutTekst(err));
      });
    return () => {
      weg = true;
    };
  }, [filters]);

  function toepassen(e: Event) {
    e.preventDefault();
    const velden = (e.currentTarget as HTMLFormElement).elements;
    for (const [id, naam] of [['f-van', 'Van'], ['f-tot', 'Tot en met']] as const) {
      const iso = naarIso((velden.namedItem(id) as HTMLInputElement).value);
      if (!iso) {
        setFout(`${naam}: dat is geen bestaande datum; vul hem in als ${DATUM_VORM}.`);
        return;
      }
      if (iso < '1900-01-01') {
        setFout(`${naam}: kies een datum vanaf 01-01-1900.`);
        return;
      }
    }
    if (concept.van > concept.tot) {
      setFout('Van ligt na Tot en met: kies een begin dat niet na het einde ligt.');
      return;
    }
    if ((Date.parse(concept.tot) - Date.parse(concept.van)) / 86_400_000 >= MAX_PERIODE_DAGEN) {
      setFout(`De periode is langer dan ${MAX_PERIODE_DAGEN} dagen: kies een kortere periode.`);
      return;
    }
    setFout('');
    setPagina(1);
    setFilters({ ...concept });
  }


  const zet = (k: keyof Filters) => (e: Event) => setConcept({ ...concept, [k]: (e.currentTarget as HTMLInputElement | HTMLSelectElement).value });

  return (
    <>
      <h1 tabIndex={-1}>Verbruik</h1>
      <form class="formulier filters" onSubmit={toepassen} aria-label="Filters">
        <div>
          <label for="f-van">Van <span class="klein">({DATUM_VORM})</span></label>
          <DatumVeld id="f-van" waarde={concept.van} onWijzig={(van) => setConcept({ ...concept, van })} />
        </div>
        <div>
          <label for="f-tot">Tot en met <span class="klein">({DATUM_VORM})</span></label>
          <DatumVeld id="f-tot" waarde={concept.tot} onWijzig={(tot) => setConcept({ ...concept, tot })} />
        </div>
        <div>
          <label for="f-voorziening">Opvraging</label>
          <select id="f-voorziening" value={concept.voorziening} onChange={zet('voorziening')}>
            <option value="">Alle</option>
            {VOORZIENINGEN.map((v) => (
              <option key={v} value={v}>{v}</option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-uitkomst">Uitkomst</label>
          <select id="f-uitkomst" value={concept.uitkomst} onChange={zet('uitkomst')}>
            <option value="alle">Alle</option>
            <option value="geslaagd">Geslaagd</option>
            <option value="mislukt">Mislukt</option>
          </select>
        </div>
        <div>
          <label for="f-sleutel">Sleutel</label>
          <select id="f-sleutel" value={concept.sleutel_id} onChange={zet('sleutel_id')}>
            <option value="">Alle</option>
            {sleutels.map((s) => (
              <option key={s.id} value={s.id}>{s.naam} ({s.voorvoegsel}…)</option>
            ))}
          </select>
        </div>
        <button type="submit">Toepassen</button>
      </form>
      {fout && <p class="fout" role="alert">{fout}</p>}

      <section aria-labelledby="kop-grafiek">
        <h2 id="kop-grafiek">Credits per dag</h2>
        {Array.isArray(perDag) ? (
          <Grafiek van={filters.van} tot={filters.tot} regels={perDag} titel="Credits per dag in de gekozen periode" />
        ) : perDag === 'mislukt' ? (
          <p>Geen grafiek: de gegevens konden niet worden gelezen (zie de melding hierboven).</p>
        ) : (
          <p role="status">Laden…</p>
        )}
      </section>

      <section aria-labelledby="kop-lijst">
        <div class="rij tussen">
          <h2 id="kop-lijst">Opvragingen {lijst ? `(${fmtGetal(lijst.totaal)})` : ''}</h2>
          {lijst && lijst.totaal > 0 ? (
            <a class="knop knop-secundair" href={exportAdres(filters)} download={`verbruik-${filters.van}-${filters.tot}.csv`}>Exporteren als CSV</a>
          ) : (
            <button type="button" class="knop-secundair" disabled>Exporteren als CSV</button>
          )}
        </div>
        <Tabel kop="kop-lijst" klasse="verbruik" kolommen={['Tijdstip', 'Opvraging', 'Adres', 'Kanaal', { titel: 'Status', getal: true }, { titel: 'Credits', getal: true }, { titel: 'Kosten', getal: true }, 'Sleutel']}>
          {lijst?.regels.map((r) => (
            <tr key={r.verzoek_id} data-voorziening={r.voorziening}>
              <td>{fmtDatumTijd(r.tijdstip)}</td>
              <td>{r.voorziening}</td>
              <td>{r.adres ?? '—'}</td>
              <td>{r.kanaal.toUpperCase()}</td>
              <td class="getal">{r.status}</td>
              <td class="getal">{fmtGetal(r.credits)}</td>
              <td class="getal">{fmtEuro(r.gefactureerd_cent)}</td>
              <td>
                <div>
                  {r.sleutel_naam ?? ''} <code>{r.sleutel_voorvoegsel ?? ''}</code>
                  {r.sleutel_voorvoegsel?.startsWith('pct_test_') && <> <span class="label label-test">test</span></>}
                </div>
              </td>
            </tr>
          ))}
        </Tabel>
        {lijst && lijst.totaal === 0 && <p>Geen opvragingen in deze periode.</p>}
        <Bladeren label="Opvragingen bladeren" pagina={pagina} totaal={lijst?.totaal ?? 0} perPagina={PER_PAGINA} naar={setPagina} />
      </section>
    </>
  );
}
