import { useEffect, useState } from 'preact/hooks';

/**
 * A date field that reads and writes dd-mm-jjjj whatever the browser's language: `<input type="date">`
 * shows the browser's own format (mm/dd/yyyy in an English browser), which a Dutch page cannot change.
 * The value passed in and out stays ISO (jjjj-mm-dd), as the API takes it.
 */
export const DATUM_VORM = 'dd-mm-jjjj';

export function naarIso(tekst: string): string | null {
  const m = /^\s*(\d{1,2})-(\d{1,2})-(\d{4})\s*$/.exec(tekst);
  if (!m) return null;
  const [d, mnd, j] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const datum = new Date(Date.UTC(j, mnd - 1, d));
  if (datum.getUTCFullYear() !== j || datum.getUTCMonth() !== mnd - 1 || datum.getUTCDate() !== d) return null;
  return datum.toISOString().slice(0, 10);
}

export function naarTekst(iso: string): string {
  const [j, m, d] = iso.split('-');
  return `${d}-${m}-${j}`;
}

interface Props {
  id: string;
  waarde: string;
  onWijzig: (iso: string) => void;
}

export function DatumVeld({ id, waarde, onWijzig }: Props) {
  const [tekst, setTekst] = useState(naarTekst(waarde));
  useEffect(() => {
    if (naarIso(tekst) !== waarde) setTekst(naarTekst(waarde));
  }, [waarde]);
  return (
    <input
      id={id}
      type="text"
      inputMode="numeric"
      autoComplete="off"
      required
      pattern="\s*\d{1,2}-\d{1,2}-\d{4}\s*"
      title={`Vul een datum in als ${DATUM_VORM}, bijvoorbeeld 25-11-2026.`}
      placeholder={DATUM_VORM}
      size={10}
      value={tekst}
      onInput={(e) => {
        const t = e.currentTarget.value;
        setTekst(t);
        const iso = naarIso(t);
        if (iso) onWijzig(iso);
      }}
    />
  );
}
