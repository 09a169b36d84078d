// The command table as a tree: groups, the longest match of command words, did-you-mean.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { didYouMean, distance, groupOf, isGroup, matchCommandWords } from '../../../src/cli/command-tree.ts';
import { COMMANDS } from '../../../src/commands/index.ts';

test('groups come from the names: config and hotfix; commands match by their longest run of words', () => {
  assert.ok(isGroup('config', COMMANDS) && isGroup('hotfix', COMMANDS));
  assert.not.ok(isGroup('provision', COMMANDS));
  assert.equal(
    groupOf('config', COMMANDS).children.map((c) => c.word),
    ['validate', 'schema', 'hash', 'diff'],
  );
  assert.is(matchCommandWords(['config', 'diff', 'a', 'b'], COMMANDS).command?.name, 'config diff');
  assert.equal(matchCommandWords(['config', '--help'], COMMANDS), { words: 1, group: 'config' });
  assert.is(matchCommandWords(['provision-wait', '--timeout', '1'], COMMANDS).command?.name, 'provision-wait');
  assert.equal(matchCommandWords(['nope'], COMMANDS), { words: 0 });
  assert.not.ok(
    groupOf('', COMMANDS).children.some((c) => c.word === 'manpage'),
    'hidden commands are not listed',
  );
});

test('did you mean: typos, swaps and prefixes; nothing for an unrelated word', () => {
  assert.is(distance('statsu', 'status'), 1);
  assert.is(didYouMean('statsu', ['status', 'version']), 'status');
  assert.is(didYouMean('provison', ['provision', 'provision-wait']), 'provision');
  assert.is(didYouMean('--dry-rn', ['--dry-run', '--provision-config']), '--dry-run');
  assert.is(didYouMean('expl', ['explain']), 'explain');
  assert.is(didYouMean('kubernetes', ['status', 'version']), undefined);
});

test.run();
