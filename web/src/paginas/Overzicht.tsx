import { useEffect, useState } from 'preact/hooks';
import { api, foutTekst } from '../api.ts';
import { useActie } from '../actie.ts';
import { Bladeren } from '../Bladeren.tsx';
import { Grafiek, type DagRegel } from '../Grafiek.tsx';
import { fmtAantal, fmtDatumTijd, fmtEuro, fmtGetal, maandBegin, vandaag } from '../opmaak.ts';
import { Tabel } from '../Tabel.tsx';

type Saldo = Awaited<ReturnType<typeof api.tegoed.saldo.query>>;
type Grootboek = Awaited<ReturnType<typeof api.tegoed.grootboek.query>>;

const SOORT: Record<string, string> = { opwaardering: 'Opwaardering', afschrijving: 'Afschrijving', correctie: 'Correctie' };

export function Overzicht() {
  const [saldo, setSaldo] = useState<Saldo | null>(null);
  const [regels, setRegels] = useState<DagRegel[] | null>(null);
  const [boek, setBoek] = useState<Grootboek | null>(null);
  const [pagina, setPagina] = useState(1);
  const [fout, setFout] = useState('');
  const [drempel, setDrempel] = useState('');
  const van = maandBegin();
  const tot = vandaag();

  // The threshold field is filled on the first load and after a save; a refused save keeps what was typed.
  const laadSaldo = () =>
    api.tegoed.saldo
      .query()
      .then((s) => {
        setSaldo(s);
        return s;
      })
      .catch((err) => setFout(foutTekst(err)));
  const drempelActie = useActie(laadSaldo);

  useEffect(() => {
    void laadSaldo().then((s) => s && setDrempel(String(s.drempel_credits)));
    api.verbruik.perDag
      .query({ van, tot })
      .then((p) => setRegels(p.per_dag))
      .catch((err) => setFout(foutTekst(err)));
  }, []);

  const zetDrempel = (e: Event) => {
    e.preventDefault();
    return drempelActie.actie(async () => {
      const r = await api.tegoed.drempel.mutate({ credits: Number(drempel) });
      setDrempel(String(r.drempel_credits));
      drempelActie.setStatus(r.drempel_credits > 0 ? `Je krijgt saldo.laag zodra het tegoed onder ${fmtAantal(r.drempel_credits, 'credit')} zakt.` : 'Je krijgt geen saldo.laag meer.');
    });
  };

  useEffect(() => {
    api.tegoed.grootboek.query({ pagina, per_pagina: 10 }).then(setBoek).catch((err) => setFout(foutTekst(err)));
  }, [pagina]);


  return (
    <>
      <h1 tabIndex={-1}>Overzicht</h1>
      {fout && <p class="fout" role="alert">{fout}</p>}
      <section class="tegels" aria-label="Tegoed">
        <div class="tegel">
          <h2>Tegoed</h2>
          <p class="groot" id="saldo-credits">{saldo ? fmtAantal(saldo.credits, 'credit') : '…'}</p>
          <p>{saldo ? `${fmtEuro(saldo.tegoed_cent)} (1 credit = ${fmtEuro(saldo.eenheid_cent)})` : ''}</p>
        </div>
        <div class="tegel">
          <h2>Verbruikt deze maand</h2>
          <p class="groot" id="credits-maand">{saldo ? fmtAantal(saldo.credits_deze_maand, 'credit') : '…'}</p>
          <p>{saldo ? `${fmtAantal(saldo.opvragingen_deze_maand, 'opvraging')} sinds ${saldo.maand_van}` : ''}</p>
        </div>
      </section>
      <section aria-labelledby="kop-drempel">
        <h2 id="kop-drempel">Melding bij laag tegoed</h2>
        <p>
          Zakt het tegoed door een opvraging onder de drempel, dan gaat de gebeurtenis <code>saldo.laag</code> naar je webhooks
          (één keer per keer dat het eronder zakt; 0: nooit). Nu:{' '}
          <strong id="drempel-nu">{saldo ? fmtAantal(saldo.drempel_credits, 'credit') : '…'}</strong>.
        </p>
        {drempelActie.fout && <p class="fout" role="alert" ref={drempelActie.foutRef}>{drempelActie.fout}</p>}
        <p role="status" class="status" ref={drempelActie.statusRef}>{drempelActie.status}</p>
        <form class="formulier" onSubmit={zetDrempel}>
          <div>
            <label for="drempel-credits">Drempel in credits</label>
            <input id="drempel-credits" type="number" inputMode="numeric" required min={0} max={1000000} step={1} value={drempel} onInput={(e) => setDrempel(e.currentTarget.value)} />
          </div>
          <button type="submit" disabled={drempelActie.bezig}>Drempel opslaan</button>
        </form>
      </section>
      <section aria-labelledby="kop-grafiek">
        <h2 id="kop-grafiek">Credits per dag, per opvraging</h2>
        {regels ? <Grafiek van={van} tot={tot} regels={regels} titel="Credits per dag deze maand" /> : <p role="status">Laden…</p>}
      </section>
      <section aria-labelledby="kop-grootboek">
        <h2 id="kop-grootboek">Grootboek</h2>
        <Tabel kop="kop-grootboek" kolommen={['Tijdstip', 'Soort', 'Omschrijving', { titel: 'Credits', getal: true }]}>
          {boek?.regels.map((r) => (
            <tr key={r.id}>
              <td>{fmtDatumTijd(r.tijdstip)}</td>
              <td>{SOORT[r.soort] ?? r.soort}</td>
              <td>{r.omschrijving ?? (r.verzoek_id ? `Opvraging ${r.verzoek_id.slice(0, 8)}` : '')}</td>
              <td class="getal">{r.credits > 0 ? `+${fmtGetal(r.credits)}` : fmtGetal(r.credits)}</td>
            </tr>
          ))}
        </Tabel>
        <Bladeren label="Grootboek bladeren" pagina={pagina} totaal={boek?.totaal ?? 0} perPagina={10} naar={setPagina} />
      </section>
    </>
  );
}
