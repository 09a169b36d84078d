// Peak memory of long streams. Bun's collector runs lazily: a 113 MB executable streamed through 64 KiB
// chunks leaves tens of MiB of dead chunks resident before it collects (measured: a 52 MB download
// peaks at 161 MiB in a bare bun script, 60 MiB with a collection every 8 MiB). Streams that move a
// lot of bytes ask for a collection every GARBAGE_STRIDE bytes; elsewhere (Node) this does nothing.

export const GARBAGE_STRIDE = 4 * 1024 * 1024;

const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;

export function collectGarbage(): void {
  bun?.gc(true);
}
