import type { Db } from "../../db/client.ts";

/**
 * A small LRU of search results per database, keyed by the normalized filters and the data version (which
 * changes with every finished ingest run). Exact totals over hundreds of thousands of matching rows cost
 * hundreds of milliseconds; identical searches on unchanged data are answered from memory, with the same bytes
 * a fresh query would give. Each process has its own cache; nothing is shared between replicas.
 */
const caches = new WeakMap<Db, Map<string, unknown>>();

export async function cached<T>(
  db: Db,
  maxEntries: number,
  key: string,
  compute: () => Promise<T>,
): Promise<T> {
  if (maxEntries <= 0) {
    return compute();
  }
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  if (cache.has(key)) {
    const value = cache.get(key) as T;
    // Re-insert to mark as most recently used.
    cache.delete(key);
    cache.set(key, value);
    return value;
  }
  const value = await compute();
  cache.set(key, value);
  if (cache.size > maxEntries) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) {
      cache.delete(oldest);
    }
  }
  return value;
}
