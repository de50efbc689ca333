/** Entry of the model-building worker thread (see build-worker.ts). */
import { serialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { buffersOf } from './build-worker.ts';
import { fitModelState } from './model.ts';

const state = fitModelState(workerData.table, workerData.opts);
// Serialised here, off the caller's event loop, when the caller stores the model (opslag.ts).
let blob: Uint8Array | null = workerData.serialiseer ? serialize(state) : null;
if (blob && (blob.byteOffset !== 0 || blob.byteLength !== blob.buffer.byteLength)) blob = new Uint8Array(blob);
// Moved, not copied: the worker ends after this message, so the caller never holds two copies.
parentPort!.postMessage({ state, blob }, [...buffersOf(state), ...(blob ? [blob.buffer as ArrayBuffer] : [])]);
