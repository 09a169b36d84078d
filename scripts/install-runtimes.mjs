#!/usr/bin/env node
// Installs the bun runtimes of the other platforms (the @oven/bun-* packages build.mjs cross-compiles
// with). They are optionalDependencies, so `npm ci` installs only this machine's one and never needs
// `force`; this fetches the rest with `npm pack`, checks each tarball against the integrity the lockfile
// pins, and unpacks it into node_modules. Idempotent: present runtimes are left alone.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const runtimes = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/@oven/bun-'));
const work = mkdtempSync(join(tmpdir(), 'anc-runtimes-'));
try {
  for (const [path, entry] of runtimes) {
    const name = path.slice('node_modules/'.length);
    const target = join(root, path);
    if (existsSync(join(target, 'package.json'))) continue;
    process.stdout.write(`install-runtimes: ${name}@${entry.version}\n`);
    const file = execFileSync('npm', ['pack', `${name}@${entry.version}`, '--pack-destination', work, '--silent'], {
      cwd: work,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop();
    const tarball = join(work, file);
    const [algorithm, expected] = entry.integrity.split('-');
    const actual = createHash(algorithm).update(readFileSync(tarball)).digest('base64');
    if (actual !== expected)
      throw new Error(`${name}@${entry.version}: tarball ${algorithm} ${actual} does not match the lockfile's ${expected}`);
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  }
} catch (error) {
  process.stderr.write(`install-runtimes: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
