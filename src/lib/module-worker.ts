import { Worker } from "node:worker_threads";

/**
 * A worker thread running one of this project's modules, named beside the caller without its extension
 * (`startModuleWorker(import.meta.url, "parse-worker")`): the compiled `.js` under `dist/`, the `.ts` source when
 * the caller itself runs from source (tests, `npm run dev`, the benchmarks). A worker thread does not inherit the
 * TypeScript loader of the thread that starts it, so a source module is started through `tsx-worker.mjs`, which
 * registers tsx (a development dependency, present wherever sources run) and then imports it. `data` is the
 * worker's `workerData` (beside `entry` when started from source).
 */
export function startModuleWorker(
  callerUrl: string,
  name: string,
  data: Record<string, unknown> = {},
): Worker {
  if (callerUrl.endsWith(".js")) {
    return new Worker(new URL(`./${name}.js`, callerUrl), { workerData: data });
  }
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  return new Worker(new URL("./tsx-worker.mjs", import.meta.url), { workerData: { ...data, entry } });
}
