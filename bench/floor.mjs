// The start-up floor the benches compare against: trivial programs that print one line, compiled with the
// agent's exact runtime and flags (build.mjs compile). `console.log` is the cheapest print a bun executable
// has; `process.stdout.write` first builds the runtime's Node stream, which costs more than the rest of the
// start. Both are built so a bench can show what the stream costs and what the real floor is.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TRIVIAL_PRINTS = {
  'console.log': "console.log('202604.01.0');\n",
  'process.stdout.write': "process.stdout.write('202604.01.0\\n');\n",
};

/** Compiles each trivial program into dir; returns { print kind: executable path }. */
export async function trivialPrograms(dir) {
  const { compile, hostTarget, runtimeFor } = await import('../build.mjs');
  const target = hostTarget();
  const runtime = runtimeFor(target).path;
  const out = {};
  for (const [kind, source] of Object.entries(TRIVIAL_PRINTS)) {
    const name = kind.replace(/\W/g, '-');
    const file = join(dir, `trivial-${name}.cjs`);
    writeFileSync(file, source);
    out[kind] = join(dir, `trivial-${name}`);
    compile(runtime, file, target, runtime, out[kind]);
  }
  return out;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
