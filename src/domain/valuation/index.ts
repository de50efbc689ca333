/**
 * Market-value model (comparable sales). Public surface for the REST/MCP procedures and the CLI.
 */
export type { Betrouwbaarheid, ModelInfo, PriceIndexPoint, SaleRecord, Subject, ValuationModel, Waardering, Weigering } from './types.ts';
export { buildModel, MODEL_VERSIE } from './model.ts';
export type { BuildOptions, FittedModel, ModelDetails } from './model.ts';
export { buildModelInWorker } from './build-worker.ts';
