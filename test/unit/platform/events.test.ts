import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderEvent } from '../../../src/platform/events.ts';

test('event JSON is the reference\'s, byte for byte: Version "1.23", the Message ends at durationMs=<n>', () => {
  const start = new Date(2099, 1, 3, 10, 30, 45, 0);
  const end = new Date(2099, 1, 3, 10, 35, 50, 0);
  assert.is(
    renderEvent({ task: 'Provision', message: 'a <b> & c', level: 'Informational', start, end }),
    '{"Timestamp":"2099-02-03 10:30:45.000","OperationId":"2099-02-03 10:35:50.000","Version":"1.23",' +
      '"TaskName":"AKS.AKSNodeController.Provision","EventLevel":"Informational",' +
      '"Message":"a \\u003cb\\u003e \\u0026 c | startTime=2099-02-03 10:30:45.000 endTime=2099-02-03 10:35:50.000 durationMs=305000",' +
      '"EventPid":"0","EventTid":"0"}',
  );
});

test('an empty message is the timing part alone, ending at durationMs', () => {
  const at = new Date(2099, 1, 3, 10, 30, 45, 0);
  assert.is(
    renderEvent({ task: 'T', message: '', level: 'Error', start: at, end: at }),
    '{"Timestamp":"2099-02-03 10:30:45.000","OperationId":"2099-02-03 10:30:45.000","Version":"1.23",' +
      '"TaskName":"AKS.AKSNodeController.T","EventLevel":"Error",' +
      '"Message":"startTime=2099-02-03 10:30:45.000 endTime=2099-02-03 10:30:45.000 durationMs=0","EventPid":"0","EventTid":"0"}',
  );
});

test('no version of ours in any part of an event', () => {
  const at = new Date(2099, 1, 3, 10, 30, 45, 7);
  const text = renderEvent({ task: 'Provision', message: 'Completed', level: 'Informational', start: at, end: at });
  assert.not.match(text, /ancVersion|\d{6}\.\d{2}\.\d+/);
  assert.match(JSON.parse(text).Message, / durationMs=0$/);
});

test.run();
