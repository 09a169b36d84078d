// A hint to collect garbage now, between large transient allocations (a page of thousands of Nodes:
// its body, its text, its parsed objects). JavaScriptCore sizes its collections by heap growth and
// does not count the large strings it keeps outside the heap, so without the hint a paged list's peak
// memory grows with the number of pages (5,000 Nodes in pages of 500: about 140 MiB without it, 100 MiB
// with it, for a few ms per page). Under bun the runtime's own synchronous Bun.gc(true); under node only
// when run with --expose-gc (V8 counts those strings and collects on its own).
const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;

export function collectGarbage(): void {
  if (bun) bun.gc(true);
  else (globalThis as { gc?: () => void }).gc?.();
}
