/**
 * The shell: login gate, header with navigation, and a small router over /app/* (History API). After a
 * route change the page's heading takes focus, so screen readers announce the new page.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, bijVerlopenSessie, foutTekst, is401, zetSessie } from './api.ts';
import { Aanmelden } from './paginas/Aanmelden.tsx';
import { Overzicht } from './paginas/Overzicht.tsx';
import { Sleutels } from './paginas/Sleutels.tsx';
import { Verbruik } from './paginas/Verbruik.tsx';
import { Webhooks } from './paginas/Webhooks.tsx';

export interface Gebruiker {
  email: string;
  account: string;
  csrf: string;
}

const PAGINAS = [
  { pad: '/app', titel: 'Overzicht' },
  { pad: '/app/sleutels', titel: 'Sleutels' },
  { pad: '/app/verbruik', titel: 'Verbruik' },
  { pad: '/app/webhooks', titel: 'Webhooks' },
] as const;

/** The page of the address; an unknown one (or one with a trailing slash) is replaced by the page's own address. */
function huidigPad(): string {
  const p = location.pathname.replace(/\/+$/, '');
  const pad = PAGINAS.some((x) => x.pad === p) ? p : '/app';
  if (location.pathname !== pad) history.replaceState(history.state, '', pad + location.search + location.hash);
  return pad;
}

export function App() {
  const [gebruiker, setGebruiker] = useState<Gebruiker | null | undefined>(undefined);
  const [pad, setPad] = useState(huidigPad);
  const [melding, setMelding] = useState('');
  const aangemeld = useRef(false);
  aangemeld.current = !!gebruiker;

  useEffect(() => {
    // The first 401 of a session says why; the page's own reloads after it add nothing.
    bijVerlopenSessie((tekst) => {
      if (!aangemeld.current) return;
      aangemeld.current = false;
      zetSessie(null);
      setMelding(tekst);
      setGebruiker(null);
    });
    api.sessie.huidig
      .query()
      .then((g) => {
        zetSessie(g);
        setGebruiker(g);
      })
      .catch((err) => {
        if (!is401(err)) setMelding(foutTekst(err));
        setGebruiker(null);
      });
    const terug = () => setPad(huidigPad());
    addEventListener('popstate', terug);
    return () => removeEventListener('popstate', terug);
  }, []);

  useEffect(() => {
    const titel = gebruiker ? (PAGINAS.find((p) => p.pad === pad)?.titel ?? 'Overzicht') : 'Aanmelden';
    document.title = `${titel} — Insight`;
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [pad, gebruiker]);

  function ga(e: MouseEvent, naar: string) {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    history.pushState(null, '', naar);
    setPad(naar);
  }

  async function afmelden() {
    try {
      await api.sessie.afmelden.mutate();
    } catch (err) {
      if (!is401(err)) setMelding(foutTekst(err));
    }
    zetSessie(null);
    setGebruiker(null);
  }

  if (gebruiker === undefined) return <p class="laden" role="status">Laden…</p>;
  if (gebruiker === null) {
    return (
      <Aanmelden
        melding={melding}
        bijAanmelding={(g) => {
          zetSessie(g);
          setMelding('');
          setGebruiker(g);
        }}
      />
    );
  }

  return (
    <>
      <a class="overslaan" href="#inhoud">Naar de inhoud</a>
      <header class="kop">
        <div class="merk">
          <span class="logo" aria-hidden="true">◆</span> Insight
          <span class="account">{gebruiker.account}</span>
        </div>
        <nav aria-label="Hoofdmenu">
          <ul>
            {PAGINAS.map((p) => (
              <li key={p.pad}>
                <a href={p.pad} aria-current={pad === p.pad ? 'page' : undefined} onClick={(e) => ga(e as unknown as MouseEvent, p.pad)}>
                  {p.titel}
                </a>
              </li>
            ))}
            <li>
              <a href="/docs">Documentatie</a>
            </li>
          </ul>
        </nav>
        <div class="wie">
          <span class="email">{gebruiker.email}</span>
          <button type="button" class="knop-secundair" onClick={afmelden}>
            Afmelden
          </button>
        </div>
      </header>
      <main id="inhoud">
        {melding && (
          <p class="fout" role="alert">
            {melding}
          </p>
        )}
        {pad === '/app/sleutels' ? <Sleutels /> : pad === '/app/verbruik' ? <Verbruik /> : pad === '/app/webhooks' ? <Webhooks /> : <Overzicht />}
      </main>
    </>
  );
}
