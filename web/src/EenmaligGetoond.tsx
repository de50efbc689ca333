import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { zetFocus } from './actie.ts';

/**
 * A secret the server shows once (a new API key, a webhook's signing secret): read-only, selectable,
 * with a copy button. Its heading takes focus when it appears, so screen readers announce it.
 */
export function EenmaligGetoond(props: {
  id: string;
  titel: string;
  label: string;
  waarde: string;
  children: ComponentChildren;
  klaar: () => void;
  /** The id of the element that takes the focus once the panel is closed (the list heading). */
  naSluiten: string;
  /** The closing button: "Ik heb hem bewaard" for de sleutel, "Ik heb het bewaard" for het geheim. */
  bewaardTekst: string;
}) {
  const [gekopieerd, setGekopieerd] = useState(false);
  const kopRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    setGekopieerd(false);
    kopRef.current?.focus();
  }, [props.waarde]);

  async function kopieer() {
    try {
      await navigator.clipboard.writeText(props.waarde);
      setGekopieerd(true);
    } catch {
      (document.getElementById(props.id) as HTMLInputElement | null)?.select();
    }
  }

  return (
    <section class="nieuwe-sleutel" aria-labelledby={`${props.id}-kop`}>
      <h2 id={`${props.id}-kop`} tabIndex={-1} ref={kopRef}>{props.titel}</h2>
      <p>{props.children}</p>
      <label for={props.id}>{props.label}</label>
      <div class="rij">
        <input id={props.id} type="text" readOnly value={props.waarde} onFocus={(e) => e.currentTarget.select()} spellcheck={false} autoComplete="off" />
        <button type="button" onClick={kopieer}>{gekopieerd ? 'Gekopieerd' : 'Kopiëren'}</button>
      </div>
      <button
        type="button"
        class="knop-secundair"
        onClick={() => {
          props.klaar();
          setTimeout(() => zetFocus(document.getElementById(props.naSluiten)));
        }}
      >{props.bewaardTekst}</button>
    </section>
  );
}
