import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

/** A column heading; `getal` right-aligns it, `verborgen` keeps it for screen readers only. */
export type Kolom = string | { titel: string; getal?: boolean; verborgen?: boolean };

/**
 * A table in a region named by its section heading (`kop`: the heading's id), focusable so a keyboard
 * can scroll it. On a narrow screen each row becomes a card (stijl.css): every cell carries its column's
 * title in `data-label`, so the card names each value and no action scrolls out of sight.
 */
export function Tabel(props: { kop: string; klasse?: string; kolommen: Kolom[]; children: ComponentChildren }) {
  const kolommen = props.kolommen.map((k) => (typeof k === 'string' ? { titel: k } : k));
  const tabel = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => {
    for (const rij of tabel.current?.tBodies[0]?.rows ?? []) {
      [...rij.cells].forEach((cel, i) => {
        const k = kolommen[i];
        if (k && !k.verborgen) cel.dataset.label = k.titel;
      });
    }
  });
  return (
    <div class="tabel-rol" role="region" aria-labelledby={props.kop} tabIndex={0}>
      <table class={props.klasse} ref={tabel}>
        <thead>
          <tr>
            {kolommen.map((c) => (
              <th key={c.titel} scope="col" class={c.getal ? 'getal' : undefined}>
                {c.verborgen ? <span class="sr">{c.titel}</span> : c.titel}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
