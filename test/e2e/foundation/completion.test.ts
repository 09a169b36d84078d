// Shell completion as a person meets it: bash and zsh complete subcommands, flags after a flag's value
// (`status -o json --<Tab>`), the closed value sets of --method, --format, -o and `completion`'s shell.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN } from '../harness.ts';

const work = mkdtempSync(join(tmpdir(), 'anc-completion-'));
test.after(() => rmSync(work, { recursive: true, force: true }));
const env = { PATH: process.env.PATH, AKS_NODE_ROOT: work };

const bashScript = join(work, 'bash-completion');
writeFileSync(bashScript, execFileSync(BIN, ['completion', 'bash'], { env }));
/** What bash offers for the words typed so far (the last word is the one being completed). */
const bashOffers = (...words: string[]) => {
  const typed = words.map((w) => `'${w}'`).join(' ');
  const script = `source "$1"; COMP_WORDS=(aks-node-controller ${typed}); COMP_CWORD=${words.length}; _aks_node_controller; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = spawnSync('bash', ['--norc', '--noprofile', '-c', script, 'bash', bashScript], { encoding: 'utf8', env });
  assert.is(out.stderr, '', out.stderr);
  return out.stdout.split('\n').filter(Boolean);
};

const zshScript = join(work, '_aks-node-controller');
writeFileSync(zshScript, execFileSync(BIN, ['completion', 'zsh'], { env }));
// zsh's completion builtins stubbed: what the script offers is what they were handed.
const zshDriver = [
  'typeset -ga OFFERED',
  'compadd() { [[ $1 == -- ]] && shift; OFFERED+=("$@"); }',
  '_describe() { local -a items; items=("${(@P)${@[-1]}}"); for i in $items; do OFFERED+=("${i%%:*}"); done; }',
  '_files() { OFFERED+=("<files>"); }',
  'script=$1; shift; words=("$@"); CURRENT=${#words}; PREFIX=${words[CURRENT]}',
  'eval "$(sed \'/^# Autoloaded from/,$d\' $script)"',
  '_aks_node_controller',
  'print -l -- $OFFERED',
].join('\n');
const zshOffers = (...words: string[]) =>
  spawnSync('zsh', ['-c', zshDriver, 'zsh', zshScript, 'aks-node-controller', ...words], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);

test('bash: subcommands, flags after a flag value, and the value sets', () => {
  assert.equal(bashOffers('config', 'di'), ['diff']);
  assert.equal(bashOffers('status', '-o', 'json', '--'), ['--wide', '--output', '--help']);
  assert.equal(bashOffers('status', '--output', 'yaml', '-'), ['--wide', '-o', '--output', '-h', '--help']);
  assert.equal(bashOffers('status', '-o', ''), ['text', 'json', 'yaml']);
  assert.equal(bashOffers('download-hotfix', '--method', ''), ['auto', 'repository', 'package-manager']);
  assert.equal(bashOffers('download-hotfix', '--timeout', '30', '--m'), ['--method']);
  assert.equal(bashOffers('custom-data', '--format', ''), ['mime', 'cloud-config', 'ignition']);
  assert.equal(bashOffers('custom-data', '--format', 'ignition', '--r'), ['--raw']);
  assert.equal(bashOffers('completion', ''), ['bash', 'zsh']);
  assert.equal(bashOffers('hotfix', 'pointer', 'verify', '--mode', 'e'), ['enforce']);
});

test('zsh: the script parses; the same answers', () => {
  assert.is(spawnSync('zsh', ['-n', zshScript]).status, 0, 'zsh -n accepts the script');
  assert.equal(zshOffers('config', ''), ['validate', 'schema', 'hash', 'diff', '--help']);
  assert.equal(zshOffers('status', '-o', ''), ['text', 'json', 'yaml']);
  assert.equal(zshOffers('status', '-o', 'json', '--'), ['--wide', '-o', '--output', '-h', '--help']);
  assert.equal(zshOffers('config', 'diff', 'a.json', ''), ['<files>']);
  assert.equal(zshOffers('download-hotfix', '--method', ''), ['auto', 'repository', 'package-manager']);
  assert.equal(zshOffers('completion', ''), ['bash', 'zsh']);
});

test('zsh: `source <(aks-node-controller completion zsh)` after compinit registers the completion, silently', () => {
  const dump = join(work, 'zcompdump');
  const sourced = spawnSync(
    'zsh',
    ['-fc', `autoload -Uz compinit; compinit -u -d ${dump}; source <(${BIN} completion zsh); print -r -- \${_comps[aks-node-controller]}`],
    { encoding: 'utf8', env },
  );
  assert.equal([sourced.status, sourced.stdout.trim(), sourced.stderr], [0, '_aks_node_controller', '']);
  // Without compinit it says what to do first, in one line, instead of failing on _describe.
  const early = spawnSync('zsh', ['-fc', `source <(${BIN} completion zsh)`], { encoding: 'utf8', env });
  assert.is(early.stderr.trim(), 'aks-node-controller completion: run "autoload -Uz compinit && compinit" first, then source this again');
});

test('custom-data --format offers exactly the formats the renderer knows', async () => {
  const { CUSTOM_DATA_FORMATS } = await import('../../../src/customdata/custom-data.ts');
  assert.equal(bashOffers('custom-data', '--format', ''), [...CUSTOM_DATA_FORMATS]);
});

test.run();
