import { useEffect, useRef } from 'preact/hooks';
import { zetFocus } from './actie.ts';

/**
 * Page navigation under a table: newer / where we are / older; a missing handler disables its button.
 * A button that becomes disabled after it was pressed (the first or last page) passes the keyboard
 * focus on to the other button, or else to the page text, instead of dropping it.
 */
export function BladerNav(props: { label: string; tekst: string; nieuwer: (() => void) | null; ouder: (() => void) | null }) {
  const nieuwer = useRef<HTMLButtonElement>(null);
  const ouder = useRef<HTMLButtonElement>(null);
  const tekst = useRef<HTMLSpanElement>(null);
  const gedrukt = useRef<HTMLButtonElement | null>(null);

  useEffect(() => {
    // Kept until the button is disabled (the delivery log knows its last page only when it is there),
    // forgotten when the focus has gone elsewhere.
    const knop = gedrukt.current;
    const nu = document.activeElement;
    const hier = nu === knop || nu === document.body;
    if (!knop || (hier && !knop.disabled)) return;
    gedrukt.current = null;
    if (!hier) return;
    const ander = knop === ouder.current ? nieuwer.current : ouder.current;
    zetFocus(ander && !ander.disabled ? ander : tekst.current);
  }, [props.nieuwer === null, props.ouder === null]);

  const druk = (knop: HTMLButtonElement | null, fn: (() => void) | null) => {
    gedrukt.current = knop;
    fn?.();
  };
  return (
    <nav class="bladeren" aria-label={props.label}>
      <button type="button" class="knop-secundair" ref={nieuwer} disabled={!props.nieuwer} onClick={() => druk(nieuwer.current, props.nieuwer)}>Nieuwer</button>
      <span ref={tekst}>{props.tekst}</span>
      <button type="button" class="knop-secundair" ref={ouder} disabled={!props.ouder} onClick={() => druk(ouder.current, props.ouder)}>Ouder</button>
    </nav>
  );
}

/** Numbered pages: page n of m. */
export function Bladeren(props: { label: string; pagina: number; totaal: number; perPagina: number; naar: (pagina: number) => void }) {
  const paginas = Math.max(1, Math.ceil(props.totaal / props.perPagina));
  const { pagina, naar } = props;
  return (
    <BladerNav label={props.label} tekst={`Pagina ${pagina} van ${paginas}`} nieuwer={pagina > 1 ? () => naar(pagina - 1) : null} ouder={pagina < paginas ? () => naar(pagina + 1) : null} />
  );
}
