/** Entry of the model-building worker thread (see build-worker.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { fitModelState } from './model.ts';

parentPort!.postMessage(fitModelState(workerData.table, workerData.opts));
