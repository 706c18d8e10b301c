import { MessageChannel, type MessagePort, type Worker } from "node:worker_threads";
import { startModuleWorker } from "../../lib/module-worker.ts";
import { XmlError } from "../xml/reader.ts";
import { type PageItem, type PageItemOptions, readPageItems } from "./page-items.ts";
import { PlacspFeedError } from "./parse.ts";

/**
 * Where a run's pages are parsed and normalized. In the server the parse runs on a worker thread of its own: on the
 * serving thread it ran between the steps of every request (each HTTP read and write waited behind a chunk of the
 * page), and its allocations were collected there (bench/results/api.md, "the parse off the serving thread"). The
 * CLI, which serves nothing, parses inline.
 */
export interface PageParser {
  items(body: AsyncIterable<string | Uint8Array>, options: PageItemOptions): AsyncIterable<PageItem>;
  close(): Promise<void>;
}

export const inlineParser: PageParser = {
  items: readPageItems,
  close: async () => {},
};

/** Messages of one page's channel (a `MessageChannel` per page, so that an abandoned page's messages go nowhere). */
export type ToParseThread = { t: "chunk"; data: string | Uint8Array } | { t: "end" } | { t: "credit" };
export type FromParseThread =
  | { t: "pull" }
  | { t: "items"; items: PageItem[] }
  | { t: "done" }
  | { t: "error"; error: ParseThreadError };
/** A page's failure as it crosses threads: its class is rebuilt on this side (the retry reads `XmlError.truncated`). */
export type ParseThreadError =
  | { kind: "feed"; message: string; xml: { message: string; truncated: boolean } | null }
  | { kind: "other"; message: string };
/** What the worker receives to start a page: its feed and its end of the page's channel. */
export interface ParsePageRequest {
  feed: string | null;
}

/**
 * A parser on a worker thread of its own (placsp/parse-worker.ts), one page at a time. This thread reads the page
 * body and hands its chunks over as the worker asks for them; the worker hands back groups of items and parses at
 * most a few groups ahead of the writer (it waits for a `credit` per group taken), so memory stays bounded by a few
 * groups whatever the speed of the database.
 */
export function startParseThread(): PageParser {
  const worker = startModuleWorker(import.meta.url, "parse-worker");
  const state: ThreadState = { stopped: null, onStop: null };
  const stop = (error: Error) => {
    state.stopped ??= error;
    state.onStop?.(state.stopped);
  };
  worker.on("error", (error) =>
    stop(new Error(`the parse thread failed: ${error.message}`, { cause: error })),
  );
  worker.on("exit", (code) => stop(new Error(`the parse thread exited (code ${code})`)));
  return {
    items: (body, options) => pageFromThread(worker, state, body, options.feed),
    close: async () => {
      await worker.terminate();
    },
  };
}

interface ThreadState {
  stopped: Error | null;
  /** The page being read, told when the thread stops under it. */
  onStop: ((error: Error) => void) | null;
}

async function* pageFromThread(
  worker: Worker,
  state: ThreadState,
  body: AsyncIterable<string | Uint8Array>,
  feed: string | null,
): AsyncGenerator<PageItem, void, undefined> {
  const { port1, port2 } = new MessageChannel();
  const input = body[Symbol.asyncIterator]();
  const groups: PageItem[][] = [];
  let finished = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const woken = wake;
    wake = null;
    woken?.();
  };
  const fail = (error: unknown) => {
    failure ??= error;
    notify();
  };
  // The worker keeps a read or two ahead; reads of the body are chained, never concurrent.
  let reading = Promise.resolve();
  port1.on("message", (message: FromParseThread) => {
    if (message.t === "pull") {
      reading = reading.then(() => input.next()).then((read) => sendChunk(port1, read), fail);
    } else if (message.t === "items") {
      groups.push(message.items);
      notify();
    } else if (message.t === "done") {
      finished = true;
      notify();
    } else {
      fail(rebuildError(message.error));
    }
  });
  if (state.stopped) {
    fail(state.stopped);
  }
  state.onStop = fail;
  const request: ParsePageRequest & { port: typeof port2 } = { feed, port: port2 };
  worker.postMessage(request, [port2]);
  try {
    for (;;) {
      const group = groups.shift();
      if (group) {
        port1.postMessage({ t: "credit" } satisfies ToParseThread);
        yield* group;
        continue;
      }
      if (failure !== null) {
        throw failure;
      }
      if (finished) {
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    state.onStop = null;
    // Closing our end tells the worker to drop the page if it is still parsing it (an abandoned read).
    port1.close();
    await input.return?.();
  }
}

/** A chunk is copied into a buffer of its own and that buffer moved, never a view into a buffer shared with others. */
function sendChunk(port: MessagePort, read: IteratorResult<string | Uint8Array>): void {
  if (read.done) {
    port.postMessage({ t: "end" } satisfies ToParseThread);
  } else if (typeof read.value === "string") {
    port.postMessage({ t: "chunk", data: read.value } satisfies ToParseThread);
  } else {
    const copy = new Uint8Array(read.value);
    port.postMessage({ t: "chunk", data: copy } satisfies ToParseThread, [copy.buffer]);
  }
}

export function describeParseError(error: unknown): ParseThreadError {
  if (error instanceof PlacspFeedError) {
    const cause = error.cause instanceof XmlError ? error.cause : null;
    return {
      kind: "feed",
      message: error.message,
      xml: cause ? { message: cause.message, truncated: cause.truncated } : null,
    };
  }
  return {
    kind: "other",
    message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  };
}

function rebuildError(error: ParseThreadError): Error {
  if (error.kind === "other") {
    return new Error(`the parse thread failed: ${error.message}`);
  }
  const cause = error.xml ? new XmlError(error.xml.message, { truncated: error.xml.truncated }) : undefined;
  return new PlacspFeedError(error.message, cause ? { cause } : undefined);
}
