import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import type { Context } from "hono";
import type { AppEnv } from "../../env.ts";

/** A file served by the service itself: the pages load nothing from anywhere else. */
export interface Asset {
  body: Buffer;
  /** gzip of `body`, made once: the API reference bundle is 4 MB raw and about a quarter of that gzipped. */
  gzip: Buffer;
  etag: string;
  contentType: string;
  cacheControl: string;
}

/** Cache-Control of an asset whose URL carries its version: it never changes under that URL. */
export const IMMUTABLE = "public, max-age=31536000, immutable";
/** Cache-Control of an asset whose URL is stable across deploys: reuse it, but ask whether it changed. */
export const REVALIDATE = "public, max-age=0, must-revalidate";

/**
 * Reads a file once, on first use (a process that never serves a page never reads the 4 MB bundle), and keeps it
 * with its gzip and strong ETag.
 */
export function lazyAsset(path: string | URL, contentType: string, cacheControl: string): () => Asset {
  let asset: Asset | undefined;
  return () => {
    if (!asset) {
      const body = readFileSync(path);
      asset = {
        body,
        gzip: gzipSync(body),
        etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
        contentType,
        cacheControl,
      };
    }
    return asset;
  };
}

/** Answers GET and HEAD with the asset: 304 when the client holds it, gzip when the client accepts it. */
export function sendAsset(c: Context<AppEnv>, asset: Asset): Response {
  const headers: Record<string, string> = {
    "Content-Type": asset.contentType,
    "Cache-Control": asset.cacheControl,
    ETag: asset.etag,
    Vary: "Accept-Encoding",
    "X-Content-Type-Options": "nosniff",
  };
  if (c.req.header("if-none-match") === asset.etag) {
    return c.body(null, 304, headers);
  }
  const gzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
  const body = gzip ? asset.gzip : asset.body;
  if (gzip) {
    headers["Content-Encoding"] = "gzip";
  }
  headers["Content-Length"] = String(body.byteLength);
  return c.body(new Uint8Array(body), 200, headers);
}
