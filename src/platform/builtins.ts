// Node's built-in modules, loaded on their first use instead of at start-up. Every command passes through
// the platform modules, and loading node:fs and node:path is about a third of a bare start-up of the
// compiled binary (bench/startup.mjs), while `version`, `--help` and the usage errors never touch a file.
// Modules import `fs` or `path` from here in place of `node:fs` / `node:path`; each property read goes to
// the runtime's own module (process.getBuiltinModule: Node >= 20.16, bun).
function lazyBuiltin<T extends object>(id: 'node:fs' | 'node:path'): T {
  return new Proxy({} as T, { get: (_target, key) => Reflect.get(process.getBuiltinModule(id), key) });
}

export const fs = lazyBuiltin<typeof import('node:fs')>('node:fs');
export const path = lazyBuiltin<typeof import('node:path')>('node:path');
