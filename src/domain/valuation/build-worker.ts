/**
 * Build the market-value model in a worker thread, so the process that asked for it keeps serving
 * requests (with its previous model) while the fit runs: the worker fits the plain-data state
 * (fitModelState) and hands it back by structured clone; only the cheap modelFromState runs on the
 * caller's thread. The result is the same model buildModel gives for the same sales and options.
 */
import { Worker } from 'node:worker_threads';
import { modelFromState } from './model.ts';
import type { BuildOptions, FittedModel, ModelState } from './model.ts';
import { buildSalesTable } from './sales-table.ts';
import type { SaleRecord } from './types.ts';

export function buildModelInWorker(sales: readonly SaleRecord[], opts: BuildOptions = {}): Promise<FittedModel> {
  const table = buildSalesTable(sales);
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./build-worker-main.ts', import.meta.url), { workerData: { table, opts } });
    let done = false;
    worker.once('message', (state: ModelState) => {
      done = true;
      try {
        resolve(modelFromState(state));
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
