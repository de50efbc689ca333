/** Page navigation under a table: newer / page n of m / older. */
export function Bladeren(props: { label: string; pagina: number; totaal: number; perPagina: number; naar: (pagina: number) => void }) {
  const paginas = Math.max(1, Math.ceil(props.totaal / props.perPagina));
  return (
    <nav class="bladeren" aria-label={props.label}>
      <button type="button" class="knop-secundair" disabled={props.pagina <= 1} onClick={() => props.naar(props.pagina - 1)}>Nieuwer</button>
      <span>Pagina {props.pagina} van {paginas}</span>
      <button type="button" class="knop-secundair" disabled={props.pagina >= paginas} onClick={() => props.naar(props.pagina + 1)}>Ouder</button>
    </nav>
  );
}
