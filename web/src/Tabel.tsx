import type { ComponentChildren } from 'preact';

/** A column heading; `getal` right-aligns it, `verborgen` keeps it for screen readers only. */
export type Kolom = string | { titel: string; getal?: boolean; verborgen?: boolean };

/**
 * A table in a region named by its section heading (`kop`: the heading's id), focusable so a keyboard
 * can scroll it: on a narrow screen a wide table scrolls inside it instead of widening the page.
 */
export function Tabel(props: { kop: string; klasse?: string; kolommen: Kolom[]; children: ComponentChildren }) {
  return (
    <div class="tabel-rol" role="region" aria-labelledby={props.kop} tabIndex={0}>
      <table class={props.klasse}>
        <thead>
          <tr>
            {props.kolommen.map((k) => {
              const c = typeof k === 'string' ? { titel: k } : k;
              return (
                <th key={c.titel} scope="col" class={c.getal ? 'getal' : undefined}>
                  {c.verborgen ? <span class="sr">{c.titel}</span> : c.titel}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
