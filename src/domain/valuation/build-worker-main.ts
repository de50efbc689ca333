/** Entry of the model-building worker thread (see build-worker.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { buffersOf } from './build-worker.ts';
import { fitModelState } from './model.ts';

const state = fitModelState(workerData.table, workerData.opts);
// Moved, not copied: the worker ends after this message, so the caller never holds two copies.
parentPort!.postMessage(state, buffersOf(state));
