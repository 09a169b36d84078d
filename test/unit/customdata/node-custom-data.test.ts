// The cloud-config reader (the `yaml` library behind a small wrapper) and node custom data application (spec 10.1).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseWriteFiles } from '../../../src/customdata/cloud-config.ts';
import { applyNodeCustomData, toWriteFile } from '../../../src/customdata/node-custom-data.ts';
import { errorMessage } from '../../../src/platform/errors.ts';
import { fakeDeps } from '../../fakes/deps.ts';

const text = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v);

test('block scalars: literal, strip, keep, folded, indentation indicator', () => {
  const entries = parseWriteFiles(`write_files:
  - path: /a
    content: |
      one
        two

  - path: /b
    content: |-
      stripped
  - path: /c
    content: |+
      kept

  - path: /d
    content: >
      folded
      line

      para
  - path: /e
    content: |2
         three spaces kept
`);
  assert.equal(
    entries.map((e) => text(e.content)),
    ['one\n  two\n', 'stripped', 'kept\n\n', 'folded line\npara\n', '   three spaces kept\n'],
  );
});

test('quoted and plain scalars, comments, !!binary, other keys skipped', () => {
  const entries = parseWriteFiles(`#cloud-config
bootcmd:
  - [ sh, -c, "echo x" ]
write_files:
# a comment
- path: "/q\\u0041"   # trailing comment
  permissions: '0600'
  owner: root
  content: 'it''s'
- path: /plain
  permissions: 0644
  content: plain value # comment
- path: /bin
  content: !!binary |
    aGVs
    bG8=
runcmd: [a, b]
`);
  assert.is(entries.length, 3);
  assert.equal([entries[0]!.path, entries[0]!.permissions, entries[0]!.content], ['/qA', '0600', "it's"]);
  assert.equal([entries[1]!.permissions, entries[1]!.content], ['0644', 'plain value']);
  assert.is(text(entries[2]!.content), 'hello');
});

test('parse errors carry line numbers and never the source text', () => {
  for (const [doc, line, problem] of [
    ['write_files:\n- path: "unterminated\n', 2, 'Missing closing "quote (MISSING_CHAR)'],
    ['write_files:\n  - path: /x\n     bad: indent\n', 2, 'Nested mappings are not allowed in compact mappings (BLOCK_AS_IMPLICIT_KEY)'],
    ['write_files: {a: 1}\n', 1, 'write_files must be a list'],
    ['write_files:\n- /just/a/path\n', 2, 'write_files entries must be mappings'],
    ['write_files:\n- path: /a\n  path: /b\n', 3, 'Map keys must be unique (DUPLICATE_KEY)'],
    ['write_files:\n- path: /a\n  content: !!binary |\n    c2VjcmV0*==\n', 3, 'invalid base64 in a !!binary scalar (TAG_RESOLVE_FAILED)'],
    ['runcmd:\n\t- secretcmd\n', 2, 'Tabs are not allowed as indentation (TAB_AS_INDENT)'],
    ['- secretitem\n', 1, 'the document is not a mapping'],
  ] as const) {
    try {
      parseWriteFiles(doc);
      assert.unreachable(doc);
    } catch (error) {
      assert.is(errorMessage(error), `yaml: line ${line}: ${problem}`, doc);
      assert.not.match(errorMessage(error), /secret|unterminated|bad: indent/, doc);
    }
  }
});

test('flow lists, null entries, non-scalar values marked with their line; only the first document counts', () => {
  assert.equal(parseWriteFiles('write_files: [{path: /y, permissions: 0644, content: ~}]\n---\nwrite_files: [{path: /z}]\n'), [
    { path: '/y', permissions: '0644', content: null },
  ]);
  assert.equal(parseWriteFiles('write_files:\n- path: /x\n  content:\n    - a\n'), [{ path: '/x', content: { unsupported: 4 } }]);
  assert.equal(parseWriteFiles('write_files:\n'), []);
  assert.equal(parseWriteFiles('# only a comment\n'), []);
  assert.equal(parseWriteFiles(''), []);
});

test('aliases outside write_files are never expanded (billion laughs is cheap); inside they are not scalars', () => {
  const names = 'abcdefghij';
  const lines = ['bootcmd:', '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++)
    lines.push(
      `  ${names[i]}: &${names[i]} [${Array(9)
        .fill(`*${names[i - 1]}`)
        .join(',')}]`,
    );
  lines.push('write_files:', '- path: /p', '  content: *j');
  const started = Date.now();
  assert.equal(parseWriteFiles(lines.join('\n')), [{ path: '/p', content: { unsupported: 14 } }]);
  assert.ok(Date.now() - started < 2000);
});

test('toWriteFile: the spec 10.1 checks and messages', () => {
  const err = (entry: Record<string, string>) => {
    try {
      toWriteFile(entry);
      return 'no error';
    } catch (error) {
      return errorMessage(error);
    }
  };
  assert.is(err({ content: 'x' }), 'apply nodecustomdata write file : path is required');
  assert.is(err({ path: '/p', owner: 'root:root' }), 'apply nodecustomdata write file /p: unsupported owner "root:root"');
  assert.is(
    err({ path: '/p', permissions: '0x1' }),
    'apply nodecustomdata write file /p: parse permissions: strconv.ParseUint: parsing "0x1": invalid syntax',
  );
  assert.is(err({ path: '/p', encoding: 'b64' }), 'apply nodecustomdata write file /p: unsupported encoding "b64"');
  assert.is(toWriteFile({ path: '/p', permissions: '4755' }).mode, 0o755);
  // Go strconv.ParseUint(s, 8, 32): the largest 32-bit value parses (mode bits kept), one more does not.
  assert.is(toWriteFile({ path: '/p', permissions: '37777777777' }).mode, 0o777);
  assert.is(
    err({ path: '/p', permissions: '40000000000' }),
    'apply nodecustomdata write file /p: parse permissions: strconv.ParseUint: parsing "40000000000": invalid syntax',
  );
  assert.match(err({ path: '/p', permissions: '+644' }), 'invalid syntax');
  assert.is(toWriteFile({ path: '/p' }).mode, 0o644);
  const gz = new Uint8Array(gzipSync(Buffer.from('zipped')));
  assert.is(Buffer.from(toWriteFile({ path: '/p', encoding: 'gzip', content: gz as never }).data).toString(), 'zipped');
});

test('applyNodeCustomData: missing file is a no-op; entries land under the root; existing files keep their mode', () => {
  const deps = fakeDeps();
  try {
    assert.equal(applyNodeCustomData(deps), []);
    mkdirSync(dirname(deps.paths.nodeCustomData), { recursive: true });
    mkdirSync(deps.paths.under('/etc'), { recursive: true });
    writeFileSync(deps.paths.under('/etc/existing'), 'old', { mode: 0o640 });
    writeFileSync(
      deps.paths.nodeCustomData,
      'write_files:\n- path: /etc/existing\n  permissions: "0600"\n  content: new\n- path: /x/y/z\n  content: deep\n',
    );
    assert.equal(applyNodeCustomData(deps), ['/etc/existing', '/x/y/z']);
    assert.is(readFileSync(deps.paths.under('/etc/existing'), 'utf8'), 'new');
    assert.is(statSync(deps.paths.under('/etc/existing')).mode & 0o777, 0o640);
    assert.ok(existsSync(deps.paths.under('/x/y/z')));
    writeFileSync(deps.paths.nodeCustomData, 'write_files:\n- path: /x\n  content: "bad\n');
    assert.throws(
      () => applyNodeCustomData(deps),
      (e: unknown) => errorMessage(e).startsWith(`unmarshal nodecustomdata ${deps.paths.nodeCustomData}: yaml: line 3`),
    );
  } finally {
    deps.cleanup();
  }
});

test.run();
