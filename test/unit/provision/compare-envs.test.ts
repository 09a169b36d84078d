// compareEnvs (spec 4.7): the NBC file parser rules and the diff.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareMessage, cseSpecific, diffEnvs, parseEnvVarsFromNBCCmdContent, valuesEqual } from '../../../src/provision/compare-envs.ts';

const parse = (text: string) => Object.fromEntries(parseEnvVarsFromNBCCmdContent(text));

test('simple unquoted vars, empty values', () => {
  assert.equal(parse('A=1 B=two C= D=4'), { A: '1', B: 'two', C: '', D: '4' });
});

test('quoted values: double and single quotes removed, single keeps inner double quotes', () => {
  assert.equal(parse(`A="x y" B='say "hi"' C="a"'b'c`), { A: 'x y', B: 'say "hi"', C: 'abc' });
});

test('url values stay intact; lowercase assignments are not assignments', () => {
  assert.equal(parse('URL=https://example.com/path?x=1&y=2 lower=skip'), { URL: 'https://example.com/path?x=1&y=2' });
});

test('shell commands are skipped, respecting quotes', () => {
  assert.equal(parse('echo "A=1 B=2"; /usr/bin/nohup /bin/bash -c "x" C=3'), { C: '3' });
});

test('missing space between assignments, and the x?A=1 quirk', () => {
  assert.equal(parse('A="x"B="y"'), { A: 'x', B: 'y' });
  assert.equal(parse('V=x?A=1'), { V: 'x?', A: '1' });
});

test('semicolons, tabs and newlines delimit; later duplicates overwrite', () => {
  assert.equal(parse('A=1;B=2\tC=3\nA=4'), { A: '4', B: '2', C: '3' });
});

test('a real nbc command snippet', () => {
  const text =
    'PROVISION_OUTPUT="/var/log/azure/cluster-provision-cse-output.log"; echo $(date),$(hostname) > ${PROVISION_OUTPUT}; ' +
    'ADMINUSER=azureuser MOBY_VERSION= KUBELET_FLAGS="--a=b --c=d" /usr/bin/nohup /bin/bash -c "/bin/bash /opt/azure/containers/provision_start.sh"';
  assert.equal(parse(text), {
    PROVISION_OUTPUT: '/var/log/azure/cluster-provision-cse-output.log',
    ADMINUSER: 'azureuser',
    MOBY_VERSION: '',
    KUBELET_FLAGS: '--a=b --c=d',
  });
});

test('unterminated quote takes the rest of the text', () => {
  assert.equal(parse('A="open B=2'), { A: 'open B=2' });
});

test('valuesEqual: quote-insensitive; SYSCTL_CONTENT as sets of decoded lines', () => {
  assert.ok(valuesEqual('X', '"a"b', 'ab'));
  assert.not.ok(valuesEqual('X', 'a', 'b'));
  const a = Buffer.from('net.a=1\n  net.b=2\n\n').toString('base64');
  const b = Buffer.from('net.b=2\nnet.a=1\nnet.a=1\n').toString('base64');
  assert.ok(valuesEqual('SYSCTL_CONTENT', a, b));
  assert.not.ok(valuesEqual('SYSCTL_CONTENT', a, Buffer.from('net.a=1\n').toString('base64')));
  assert.ok(valuesEqual('SYSCTL_CONTENT', 'not base64!', '"not base64!"'), 'falls back to the literal comparison');
});

test('diffEnvs: kinds, sorted union, ignored keys never only-in-nbc or differs', () => {
  const pc = new Map([
    ['ADMINUSER', 'u'],
    ['VM_TYPE', 'vmss'],
    ['SAME', 'x'],
    ['SKIP_WAAGENT_HOLD', 'true'],
  ]);
  const nbc = new Map([
    ['VM_TYPE', 'standard'],
    ['SAME', '"x"'],
    ['EXTRA', '1'],
    ['HYPERKUBE_URL', 'h'],
    ['SKIP_WAAGENT_HOLD', 'false'],
  ]);
  const diffs = diffEnvs(pc, nbc);
  assert.equal(diffs, ['only-in-pc: ADMINUSER', 'only-in-nbc: EXTRA', 'differs: VM_TYPE']);
  assert.is(compareMessage(diffs), 'env var differences (3): only-in-pc: ADMINUSER; only-in-nbc: EXTRA; differs: VM_TYPE');
  assert.is(compareMessage([]), 'env vars match between provision-config and nbc-cmd');
});

test('cseSpecific: drops entries identical to the agent environment', () => {
  const merged = { PATH: '/bin', A: '1', HOME: '/root' };
  assert.equal(
    [...cseSpecific(merged, { PATH: '/bin', HOME: '/home' })],
    [
      ['A', '1'],
      ['HOME', '/root'],
    ],
  );
});

test.run();
