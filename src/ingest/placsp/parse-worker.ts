import { type MessagePort, parentPort } from "node:worker_threads";
import type { PageItem } from "./page-items.ts";
import { readPageItems } from "./page-items.ts";
import {
  describeParseError,
  type FromParseThread,
  type ParsePageRequest,
  type ToParseThread,
} from "./parse-thread.ts";

/**
 * The parse thread (placsp/parse-thread.ts): parses and normalizes the pages it is given, one at a time, exactly as
 * the inline parser does (`readPageItems`), and hands the items back in groups.
 */

/** Items per message: a few entries' worth, so the writer never waits long for the first of a batch. */
const GROUP_ITEMS = 8;
/** Groups handed over and not yet taken by the writer before the parse waits. */
const GROUPS_AHEAD = 8;
/** Chunks of the body asked for ahead of the parse, so it does not wait for a busy serving thread for each. */
const CHUNKS_AHEAD = 2;

class PageAbandoned extends Error {}

/** One page's channel: the chunks and credits that arrive on it, and whether the reader closed it. */
class Inbox {
  private readonly chunks: (ToParseThread & { t: "chunk" | "end" })[] = [];
  private credits = 0;
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(port: MessagePort) {
    port.on("message", (message: ToParseThread) => {
      if (message.t === "credit") {
        this.credits += 1;
      } else {
        this.chunks.push(message);
      }
      this.notify();
    });
    port.on("close", () => {
      this.closed = true;
      this.notify();
    });
  }

  async chunk(): Promise<ToParseThread & { t: "chunk" | "end" }> {
    for (;;) {
      const next = this.chunks.shift();
      if (next) {
        return next;
      }
      await this.wait();
    }
  }

  async credit(): Promise<void> {
    while (this.credits === 0) {
      await this.wait();
    }
    this.credits -= 1;
  }

  private async wait(): Promise<void> {
    if (this.closed) {
      throw new PageAbandoned();
    }
    await new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    if (this.closed) {
      throw new PageAbandoned();
    }
  }

  private notify(): void {
    const woken = this.wake;
    this.wake = null;
    woken?.();
  }
}

async function parsePage(port: MessagePort, request: ParsePageRequest): Promise<void> {
  const inbox = new Inbox(port);
  const post = (message: FromParseThread) => port.postMessage(message);
  let group: PageItem[] = [];
  let ahead = 0;
  const handOver = async (waitForWriter: boolean) => {
    if (group.length > 0) {
      post({ t: "items", items: group });
      group = [];
      ahead += 1;
    }
    while (waitForWriter && ahead >= GROUPS_AHEAD) {
      await inbox.credit();
      ahead -= 1;
    }
  };
  async function* body(): AsyncGenerator<string | Uint8Array, void, undefined> {
    for (let i = 0; i < CHUNKS_AHEAD; i++) {
      post({ t: "pull" });
    }
    for (;;) {
      // What is parsed goes to the writer before this thread waits for more of the page.
      await handOver(true);
      const next = await inbox.chunk();
      if (next.t === "end") {
        return;
      }
      post({ t: "pull" });
      yield next.data;
    }
  }
  try {
    for await (const item of readPageItems(body(), { feed: request.feed })) {
      group.push(item);
      if (group.length >= GROUP_ITEMS) {
        await handOver(true);
      }
    }
    await handOver(false);
    post({ t: "done" });
  } catch (error) {
    if (!(error instanceof PageAbandoned)) {
      // The items completed before the break go first: the writer commits them, as the inline parse does.
      await handOver(false);
      post({ t: "error", error: describeParseError(error) });
    }
  } finally {
    port.close();
  }
}

// Pages arrive one at a time (the reader awaits each page's end before the next); each has its own channel.
parentPort?.on("message", (request: ParsePageRequest & { port: MessagePort }) => {
  void parsePage(request.port, request);
});
