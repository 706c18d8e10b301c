// The entry of a worker thread that runs a TypeScript module from source (lib/module-worker.ts): registers the tsx
// loader in this thread, then imports the module. Only used where sources run through tsx; `dist/` starts the
// compiled module directly.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
