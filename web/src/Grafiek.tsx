/**
 * Credits per day, stacked by lookup (Chart.js bar chart). The canvas is an image with a summary for
 * screen readers; the same figures are in a table below it, so nothing is only visible in the chart.
 */
import { useEffect, useRef } from 'preact/hooks';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { dagenTussen, fmtAantal, fmtGetal } from './opmaak.ts';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface DagRegel {
  dag: string;
  voorziening: string;
  aantal: number;
  credits: number;
}

/** Colour-blind-safe palette (Okabe-Ito), one colour per lookup. */
const KLEUREN: Record<string, string> = {
  adres: '#0072B2',
  woz: '#E69F00',
  energielabel: '#009E73',
  woningtype: '#CC79A7',
  invloeden: '#D55E00',
  waarde: '#56B4E9',
};

export function Grafiek(props: { van: string; tot: string; regels: DagRegel[]; titel: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const dagen = dagenTussen(props.van, props.tot);
  const voorzieningen = [...new Set(props.regels.map((r) => r.voorziening))].sort();
  const totaal = props.regels.reduce((n, r) => n + r.credits, 0);

  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: dagen.map((d) => d.slice(8, 10) + '-' + d.slice(5, 7)),
        datasets: voorzieningen.map((v) => ({
          label: v,
          backgroundColor: KLEUREN[v] ?? '#555555',
          data: dagen.map((d) => props.regels.filter((r) => r.dag === d && r.voorziening === v).reduce((n, r) => n + r.credits, 0)),
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: 'credits' }, ticks: { precision: 0 } } },
        plugins: { legend: { position: 'bottom' } },
      },
    });
    return () => chart.destroy();
  }, [props.van, props.tot, JSON.stringify(props.regels)]);

  const samenvatting = voorzieningen.length
    ? `${props.titel}: ${fmtAantal(totaal, 'credit')} van ${props.van} tot en met ${props.tot}, ` +
      voorzieningen.map((v) => `${v} ${fmtGetal(props.regels.filter((r) => r.voorziening === v).reduce((n, r) => n + r.credits, 0))}`).join(', ') + '.'
    : `${props.titel}: geen verbruik van ${props.van} tot en met ${props.tot}.`;

  return (
    <figure class="grafiek">
      <div class="grafiek-vlak">
        <canvas ref={canvas} role="img" aria-label={samenvatting} data-totaal={totaal} />
      </div>
      <figcaption>{samenvatting}</figcaption>
      <details>
        <summary>Cijfers als tabel</summary>
        <div class="tabel-rol" role="region" aria-label={`${props.titel} als tabel`} tabIndex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">Dag</th>
                <th scope="col">Opvraging</th>
                <th scope="col" class="getal">Aantal</th>
                <th scope="col" class="getal">Credits</th>
              </tr>
            </thead>
            <tbody>
              {props.regels.map((r) => (
                <tr key={`${r.dag}-${r.voorziening}`}>
                  <td data-label="Dag">{r.dag}</td>
                  <td data-label="Opvraging">{r.voorziening}</td>
                  <td class="getal" data-label="Aantal">{fmtGetal(r.aantal)}</td>
                  <td class="getal" data-label="Credits">{fmtGetal(r.credits)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
