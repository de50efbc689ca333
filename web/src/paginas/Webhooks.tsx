import { useEffect, useState } from 'preact/hooks';
import { api, foutTekst } from '../api.ts';
import { useActie } from '../actie.ts';
import { BladerNav } from '../Bladeren.tsx';
import { EenmaligGetoond } from '../EenmaligGetoond.tsx';
import { fmtDatum, fmtDatumTijd } from '../opmaak.ts';
import { Tabel } from '../Tabel.tsx';

type Lijst = Awaited<ReturnType<typeof api.webhooks.lijst.query>>;
type Webhook = Lijst['webhooks'][number];
type Afleveringen = Awaited<ReturnType<typeof api.webhooks.afleveringen.query>>;
type Aflevering = Afleveringen['regels'][number];

const EVENTS: Record<string, string> = {
  'inzicht.voltooid': 'een opvraging is gelukt',
  'inzicht.mislukt': 'een opvraging is mislukt',
  'saldo.laag': 'het saldo komt onder de drempel',
  'sleutel.verloopt': 'een sleutel verloopt binnenkort',
  'sleutel.limiet_bereikt': 'een sleutel bereikt zijn maandlimiet',
  'webhook.test': 'testgebeurtenis',
};
const TOESTAND: Record<Aflevering['toestand'], string> = { wachtend: 'Wachtend', bezig: 'Bezig', afgeleverd: 'Afgeleverd', mislukt: 'Mislukt' };
const PER_PAGINA = 20;
/** After a test send or replay the log refreshes itself this long while a delivery is still under way. */
const VOLGEN_MS = 30_000;

export function Webhooks() {
  const [lijst, setLijst] = useState<Lijst | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['inzicht.voltooid', 'inzicht.mislukt', 'saldo.laag']);
  const [omschrijving, setOmschrijving] = useState('');
  const [geheim, setGeheim] = useState<{ id: string; titel: string; waarde: string } | null>(null);
  // The delivery log: which webhook and which page (cursors of the pages before it), set together so
  // another webhook always starts at its first page; and its rows.
  const [keuze, setKeuze] = useState<{ id: string | null; cursors: string[] }>({ id: null, cursors: [] });
  const { id: gekozen, cursors } = keuze;
  const setCursors = (c: string[]) => setKeuze({ id: gekozen, cursors: c });
  const [log, setLog] = useState<Afleveringen | null>(null);
  const [volgenTot, setVolgenTot] = useState(0);
  const [tik, setTik] = useState(0);

  const { bezig, fout, setFout, status, setStatus, actie, foutRef, statusRef } = useActie(() => laad());
  const laad = () =>
    api.webhooks.lijst
      .query()
      .then((l) => {
        setLijst(l);
        setKeuze((k) => (k.id && l.webhooks.some((w) => w.id === k.id) ? k : { id: l.webhooks[0]?.id ?? null, cursors: [] }));
      })
      .catch((err) => setFout(foutTekst(err)));
  useEffect(() => void laad(), []);

  useEffect(() => {
    if (!gekozen) {
      setLog(null);
      return;
    }
    let weg = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    api.webhooks.afleveringen
      .query({ id: gekozen, limiet: PER_PAGINA, ...(cursors.length ? { na: cursors[cursors.length - 1] } : {}) })
      .then((a) => {
        if (weg) return;
        setLog(a);
        const onderweg = a.regels.some((r) => r.toestand === 'wachtend' || r.toestand === 'bezig');
        if (onderweg && Date.now() < volgenTot) timer = setTimeout(() => setTik((n) => n + 1), 1000);
      })
      .catch((err) => !weg && setFout(foutTekst(err)));
    return () => {
      weg = true;
      clearTimeout(timer);
    };
  }, [gekozen, cursors, tik, volgenTot]);

  const toonLog = (id: string) => {
    setKeuze({ id, cursors: [] });
    setVolgenTot(Date.now() + VOLGEN_MS);
    setTik((n) => n + 1);
  };

  const maak = (e: Event) => {
    e.preventDefault();
    return actie(async () => {
      const w = await api.webhooks.maak.mutate({ url: url.trim(), events, omschrijving: omschrijving.trim() || null });
      setGeheim({ id: w.id, titel: `Ondertekengeheim van ${w.url}`, waarde: w.geheim });
      setUrl('');
      setOmschrijving('');
      setKeuze({ id: w.id, cursors: [] });
    });
  };

  const test = (w: Webhook) =>
    actie(async () => {
      await api.webhooks.test.mutate({ id: w.id });
      setStatus(
        w.actief
          ? `Testgebeurtenis klaargezet voor ${w.url}; volg hem hieronder in de afleveringen.`
          : `Testgebeurtenis klaargezet, maar webhook ${w.url} staat uit: de test wacht tot je hem weer aanzet.`,
      );
      toonLog(w.id);
    });

  const zetActief = (w: Webhook) =>
    actie(async () => {
      await api.webhooks.wijzig.mutate({ id: w.id, actief: !w.actief });
      setStatus(w.actief ? `Webhook ${w.url} staat uit.` : `Webhook ${w.url} staat weer aan; wachtende afleveringen gaan alsnog.`);
    });

  const roteer = (w: Webhook) => {
    if (!confirm(`Nieuw geheim voor ${w.url}? Het huidige tekent nog 24 uur mee.`)) return;
    return actie(async () => {
      const r = await api.webhooks.roteer.mutate({ id: w.id });
      setGeheim({ id: w.id, titel: `Nieuw ondertekengeheim van ${r.url}`, waarde: r.geheim });
    });
  };

  const verwijder = (w: Webhook) => {
    if (!confirm(`Webhook ${w.url} verwijderen? Wachtende afleveringen vervallen.`)) return;
    return actie(async () => {
      await api.webhooks.verwijder.mutate({ id: w.id });
      setGeheim((g) => (g?.id === w.id ? null : g));
      setStatus(`Webhook ${w.url} is verwijderd.`);
    });
  };

  const opnieuw = (a: Aflevering) =>
    actie(async () => {
      if (!gekozen) return;
      await api.webhooks.opnieuw.mutate({ id: gekozen, aflevering: a.id });
      setStatus(`Aflevering ${a.gebeurtenis_id} wordt opnieuw verstuurd.`);
      toonLog(gekozen);
    });

  const kies = (ev: string, aan: boolean) => setEvents((huidig) => (aan ? [...huidig, ev] : huidig.filter((x) => x !== ev)));
  const webhooks = lijst?.webhooks ?? [];
  const vol = lijst ? webhooks.length >= lijst.max : false;
  const logVan = webhooks.find((w) => w.id === gekozen);
  const volgende = log?.volgende;
  /** In the buttons' accessible names: the URL, and what tells two webhooks with one URL apart. */
  const naam = (w: Webhook) => {
    if (w.omschrijving) return `${w.url} (${w.omschrijving})`;
    return webhooks.some((x) => x.id !== w.id && x.url === w.url) ? `${w.url} (id ${w.id.slice(0, 8)})` : w.url;
  };

  return (
    <>
      <h1 tabIndex={-1}>Webhooks</h1>
      <p>
        Insight stuurt gebeurtenissen van je account als ondertekende POST (Standard Webhooks: headers <code>webhook-id</code>, <code>webhook-timestamp</code>,{' '}
        <code>webhook-signature</code>) naar jouw https-adres. Hoogstens {lijst?.max ?? 10} webhooks per account. Zie de <a href="/docs">documentatie</a>.
      </p>
      {fout && <p class="fout" role="alert" ref={foutRef}>{fout}</p>}
      <p role="status" class="status" ref={statusRef}>{status}</p>

      {geheim && (
        <EenmaligGetoond id="webhook-geheim" titel={geheim.titel} label="Geheim" waarde={geheim.waarde} klaar={() => setGeheim(null)} naSluiten="kop-webhooks" bewaardTekst="Ik heb het bewaard">
          <strong>Kopieer dit geheim nu: het wordt maar één keer getoond.</strong> Je ontvanger controleert er de handtekening van elke aflevering mee.
        </EenmaligGetoond>
      )}

      <section aria-labelledby="kop-nieuwe-webhook">
        <h2 id="kop-nieuwe-webhook">Nieuwe webhook</h2>
        {vol && <p>Dit account heeft al {lijst?.max} webhooks; verwijder er eerst een.</p>}
        <form class="formulier" onSubmit={maak}>
          <div class="breed">
            <label for="webhook-url">URL van de ontvanger</label>
            <input id="webhook-url" type="url" required maxLength={2048} value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://voorbeeld.nl/insight-webhook" spellcheck={false} />
          </div>
          <div>
            <label for="webhook-omschrijving">Omschrijving (niet verplicht)</label>
            <input id="webhook-omschrijving" maxLength={200} value={omschrijving} onInput={(e) => setOmschrijving(e.currentTarget.value)} />
          </div>
          <fieldset class="keuzes breed">
            <legend>Gebeurtenissen</legend>
            {(lijst?.event_typen ?? []).map((ev) => (
              <label key={ev} class="keuze">
                <input type="checkbox" checked={events.includes(ev)} onChange={(e) => kies(ev, e.currentTarget.checked)} />
                <code>{ev}</code> <span class="klein">{EVENTS[ev] ?? ''}</span>
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={bezig || vol || !url.trim() || events.length === 0}>Webhook toevoegen</button>
        </form>
      </section>

      <section aria-labelledby="kop-webhooks">
        <h2 id="kop-webhooks">Jouw webhooks</h2>
        {lijst && webhooks.length === 0 && <p>Nog geen webhooks.</p>}
        <Tabel kop="kop-webhooks" klasse="webhooks" kolommen={['URL', 'Gebeurtenissen', 'Status', 'Gemaakt', { titel: 'Acties', verborgen: true }]}>
          {webhooks.map((w) => (
            <tr key={w.id} data-url={w.url} data-actief={String(w.actief)}>
              <td class="url">
                <div>
                  <code>{w.url}</code>
                  {w.omschrijving && <div class="klein">{w.omschrijving}</div>}
                </div>
              </td>
              <td>{w.events.join(', ')}</td>
              <td>
                <div>
                  <span class={`label label-${w.actief ? 'geldig' : 'ingetrokken'}`}>{w.actief ? 'Aan' : 'Uit'}</span>
                  {w.uitschakel_reden && <div class="klein">{w.uitschakel_reden}</div>}
                </div>
              </td>
              <td>{fmtDatum(w.aangemaakt_op)}</td>
              <td class="acties">
                <button type="button" disabled={bezig} onClick={() => test(w)} aria-label={`Test sturen naar ${naam(w)}`}>Test sturen</button>
                <button type="button" class="knop-secundair" onClick={() => toonLog(w.id)} aria-label={`Afleveringen van ${naam(w)} tonen`} aria-pressed={gekozen === w.id}>Afleveringen</button>
                <button type="button" class="knop-secundair" disabled={bezig} onClick={() => zetActief(w)} aria-label={`Webhook ${naam(w)} ${w.actief ? 'uitzetten' : 'aanzetten'}`}>{w.actief ? 'Uitzetten' : 'Aanzetten'}</button>
                <button type="button" class="knop-secundair" disabled={bezig} onClick={() => roteer(w)} aria-label={`Nieuw geheim voor ${naam(w)}`}>Nieuw geheim</button>
                <button type="button" class="knop-gevaar" disabled={bezig} onClick={() => verwijder(w)} aria-label={`Webhook ${naam(w)} verwijderen`}>Verwijderen</button>
              </td>
            </tr>
          ))}
        </Tabel>
      </section>

      {logVan && (
        <section aria-labelledby="kop-afleveringen">
          <div class="rij tussen">
            <h2 id="kop-afleveringen">Afleveringen van <code>{logVan.url}</code></h2>
            <button type="button" class="knop-secundair" onClick={() => setTik((n) => n + 1)}>Vernieuwen</button>
          </div>
          <Tabel kop="kop-afleveringen" klasse="afleveringen" kolommen={['Tijdstip', 'Gebeurtenis', 'Toestand', { titel: 'Pogingen', getal: true }, { titel: 'Laatste status', getal: true }, 'Laatste fout', 'Volgende poging', { titel: 'Acties', verborgen: true }]}>
            {log?.regels.map((a) => (
              <tr key={a.id} data-type={a.type} data-toestand={a.toestand} data-gebeurtenis={a.gebeurtenis_id}>
                <td>{fmtDatumTijd(a.aangemaakt_op)}</td>
                <td><code>{a.type}</code></td>
                <td><span class={`label toestand-${a.toestand}`}>{TOESTAND[a.toestand]}</span></td>
                <td class="getal">{a.pogingen}</td>
                <td class="getal">{a.laatste_status ?? '—'}</td>
                <td>{a.laatste_fout ?? '—'}</td>
                <td>{fmtDatumTijd(a.volgende_poging)}</td>
                <td class="acties">
                  <button type="button" class="knop-secundair" disabled={bezig || a.toestand === 'bezig'} onClick={() => opnieuw(a)} aria-label={`Gebeurtenis ${a.type} van ${fmtDatumTijd(a.aangemaakt_op)} opnieuw sturen`}>Opnieuw sturen</button>
                </td>
              </tr>
            ))}
          </Tabel>
          {log && log.regels.length === 0 && <p>Nog geen afleveringen. Stuur een testgebeurtenis om je ontvanger te proberen.</p>}
          <BladerNav
            label="Afleveringen bladeren"
            tekst={`Pagina ${cursors.length + 1}`}
            nieuwer={cursors.length ? () => setCursors(cursors.slice(0, -1)) : null}
            ouder={volgende ? () => setCursors([...cursors, volgende]) : null}
          />
        </section>
      )}
    </>
  );
}
