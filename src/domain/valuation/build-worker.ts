/**
 * Build the market-value model in a worker thread, so the process that asked for it keeps serving
 * requests (with its previous model) while the fit runs: the worker fits the plain-data state
 * (fitModelState) and hands it back by structured clone; only the cheap modelFromState runs on the
 * caller's thread. The result is the same model buildModel gives for the same sales and options.
 *
 * Memory: the sales table's columns are moved (transferred) into the worker and the fitted state's
 * arrays moved back, never copied, so a rebuild beside a live model costs one table and one model's
 * working memory, not three copies of them.
 * The sale ids and dwelling ids (strings, not transferable, unused by the fit) never leave this thread.
 */
import { Worker } from 'node:worker_threads';
import { modelFromState } from './model.ts';
import type { BuildOptions, FittedModel, ModelState } from './model.ts';
import { opslagVan } from './opslag.ts';
import { buildSalesTable } from './sales-table.ts';
import type { SalesTable } from './sales-table.ts';
import type { SaleRecord } from './types.ts';

/**
 * The distinct ArrayBuffers behind the typed arrays (and bare ArrayBuffers) of a plain-data value
 * (objects, arrays, Maps), for a transfer list. Arrays of primitives are not walked.
 */
export function buffersOf(value: unknown): ArrayBuffer[] {
  const found = new Set<ArrayBuffer>();
  const seen = new Set<object>();
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (v instanceof ArrayBuffer) found.add(v);
    else if (ArrayBuffer.isView(v)) {
      if (v.buffer instanceof ArrayBuffer) found.add(v.buffer);
    } else if (Array.isArray(v)) {
      if (v.length && (typeof v[0] !== 'object' || v[0] === null)) return;
      for (const x of v) walk(x);
    } else if (v instanceof Map) for (const x of v.values()) walk(x);
    else for (const x of Object.values(v)) walk(x);
  };
  walk(value);
  return [...found];
}

/** The worker's young generation (MB): V8 let it grow to 128 MB under the learner's garbage, beside a live heap of ~60 MB. */
const JONGE_GENERATIE_MB = 48;

export function buildModelInWorker(sales: readonly SaleRecord[], opts: BuildOptions = {}): Promise<FittedModel> {
  return inWorker(buildSalesTable(sales), opts, false).then((r) => r.model);
}

/** As buildModelInWorker from a table (its columns move), and the model serialised for storage (opslag.ts). */
export function buildModelForStorage(tabel: SalesTable, opts: BuildOptions = {}): Promise<{ model: FittedModel; opslag: Uint8Array[] }> {
  return inWorker(tabel, opts, true).then((r) => ({ model: r.model, opslag: r.opslag! }));
}

function inWorker(tabel: SalesTable, opts: BuildOptions, serialiseer: boolean): Promise<{ model: FittedModel; opslag: Uint8Array[] | null }> {
  // The sale ids and the dwelling-id map (a million strings each) serve only the live requests'
  // exclusions, never the fit: they stay here instead of being copied there and back.
  const { ids, objectIndex, ...columns } = tabel;
  const table: SalesTable = { ...columns, ids: [], objectIndex: new Map() };
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./build-worker-main.ts', import.meta.url), { workerData: { table, opts, serialiseer }, transferList: buffersOf(table), resourceLimits: { maxYoungGenerationSizeMb: JONGE_GENERATIE_MB } });
    let done = false;
    worker.once('message', ({ state, blob }: { state: ModelState; blob: Uint8Array | null }) => {
      done = true;
      try {
        state.table.ids = ids;
        state.table.objectIndex = objectIndex;
        resolve({ model: modelFromState(state), opslag: blob ? opslagVan(blob, ids, objectIndex) : null });
      } catch (err) {
        reject(err);
      }
      void worker.terminate();
    });
    worker.once('error', (err) => {
      done = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!done) reject(new Error(`Het bouwen van het waardemodel stopte onverwacht (code ${code}).`));
    });
  });
}
