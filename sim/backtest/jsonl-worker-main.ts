/**
 * The JSONL reader thread's code as one module (jsonl-pipeline.ts starts it): bundled into the
 * temp directory when running from source, built into the package as dist/jsonl-worker.js.
 */
import { workerData } from 'node:worker_threads';
import { run } from './jsonl-worker.ts';

run(workerData);
