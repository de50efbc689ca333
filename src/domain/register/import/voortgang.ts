/** The bar pulls the state from a getter, so the parser never waits for output. */
import cliProgress from 'cli-progress';

export interface VoortgangStand {
  fase: string;
  gelezenBytes: number;
  totaalBytes: number;
  rijen: number;
}

export interface Voortgang {
  start(stand: () => VoortgangStand): void;
  stop(gelukt?: boolean): void;
}

export const stilleVoortgang: Voortgang = { start() {}, stop() {} };

function mb(n: number): string {
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} kB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

function duur(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '?';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} uur`;
}

export interface VoortgangOpties {
  stroom: NodeJS.WriteStream;
  interval?: number;
  label: string;
}

export function maakVoortgang(opts: VoortgangOpties): Voortgang {
  return opts.stroom.isTTY ? balkVoortgang(opts) : regelVoortgang(opts);
}

function snelheidMeter() {
  const start = Date.now();
  return (rijen: number) => {
    const s = (Date.now() - start) / 1000;
    return s > 0 ? rijen / s : 0;
  };
}

function balkVoortgang(opts: VoortgangOpties): Voortgang {
  let timer: NodeJS.Timeout | null = null;
  let bar: cliProgress.SingleBar | null = null;
  let laatste: ((gelukt: boolean) => void) | null = null;
  return {
    start(stand) {
      const snelheid = snelheidMeter();
      // The last frame shows the end state, or a short import would end at 0 %.
      laatste = (gelukt) => {
        const s = stand();
        bar?.setTotal(Math.max(1, s.totaalBytes));
        bar?.update(gelukt ? Math.max(1, s.totaalBytes) : Math.min(s.gelezenBytes, s.totaalBytes), { fase: gelukt ? 'klaar' : 'afgebroken', rijen: s.rijen, snelheid: Math.round(snelheid(s.rijen)) });
      };
      bar = new cliProgress.SingleBar(
        {
          stream: opts.stroom,
          format: `${opts.label} {fase} [{bar}] {percentage}% | {rijen} rijen | {snelheid} rijen/s | nog {eta_formatted}`,
          hideCursor: true,
          etaBuffer: 50,
          fps: 5,
          formatValue: (v, _o, type) => (type === 'value' || type === 'total' ? mb(v) : String(v)),
        },
        cliProgress.Presets.shades_classic,
      );
      const s0 = stand();
      bar.start(Math.max(1, s0.totaalBytes), 0, { fase: s0.fase, rijen: 0, snelheid: 0 });
      timer = setInterval(() => {
        const s = stand();
        bar?.setTotal(Math.max(1, s.totaalBytes));
        bar?.update(Math.min(s.gelezenBytes, s.totaalBytes), { fase: s.fase, rijen: s.rijen, snelheid: Math.round(snelheid(s.rijen)) });
      }, 200);
      timer.unref();
    },
    stop(gelukt = true) {
      if (timer) clearInterval(timer);
      laatste?.(gelukt);
      bar?.stop();
      timer = null;
      bar = null;
      laatste = null;
    },
  };
}

function regelVoortgang(opts: VoortgangOpties): Voortgang {
  let timer: NodeJS.Timeout | null = null;
  let regel: ((klaar: boolean, gelukt?: boolean) => void) | null = null;
  return {
    start(stand) {
      const snelheid = snelheidMeter();
      const t0 = Date.now();
      regel = (klaar, gelukt = true) => {
        const s = stand();
        const v = snelheid(s.rijen);
        const frac = klaar && gelukt ? 1 : s.totaalBytes > 0 ? Math.min(1, s.gelezenBytes / s.totaalBytes) : 0;
        const verstreken = (Date.now() - t0) / 1000;
        const eta = frac > 0 ? (verstreken / frac) * (1 - frac) : Number.NaN;
        opts.stroom.write(
          `${opts.label}: ${klaar ? (gelukt ? 'klaar' : 'afgebroken') : s.fase} ${(frac * 100).toFixed(0)}% (${mb(klaar && gelukt ? s.totaalBytes : s.gelezenBytes)} van ${mb(s.totaalBytes)}), ` +
            `${s.rijen} rijen, ${Math.round(v)} rijen/s${klaar ? `, ${duur(verstreken)}` : `, nog ~${duur(eta)}`}\n`,
        );
      };
      timer = setInterval(() => regel?.(false), (opts.interval ?? 5) * 1000);
      timer.unref();
    },
    stop(gelukt = true) {
      if (timer) clearInterval(timer);
      timer = null;
      regel?.(true, gelukt);
      regel = null;
    },
  };
}
