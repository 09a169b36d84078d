import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderEvent } from '../../../src/platform/events.ts';

test('event JSON matches the reference byte for byte (Version "1.23"), plus a trailing " | ancVersion=<v>" Message part', () => {
  const start = new Date(2099, 1, 3, 10, 30, 45, 0);
  const end = new Date(2099, 1, 3, 10, 35, 50, 0);
  assert.is(
    renderEvent({ task: 'Provision', message: 'a <b> & c', level: 'Informational', start, end }, '202604.01.1'),
    '{"Timestamp":"2099-02-03 10:30:45.000","OperationId":"2099-02-03 10:35:50.000","Version":"1.23",' +
      '"TaskName":"AKS.AKSNodeController.Provision","EventLevel":"Informational",' +
      '"Message":"a \\u003cb\\u003e \\u0026 c | startTime=2099-02-03 10:30:45.000 endTime=2099-02-03 10:35:50.000 durationMs=305000 | ancVersion=202604.01.1",' +
      '"EventPid":"0","EventTid":"0"}',
  );
});

test('an empty message: the timing part first, the version part last', () => {
  const at = new Date(2099, 1, 3, 10, 30, 45, 0);
  const event = JSON.parse(renderEvent({ task: 'T', message: '', level: 'Error', start: at, end: at }, 'dev'));
  assert.is(event.Message, 'startTime=2099-02-03 10:30:45.000 endTime=2099-02-03 10:30:45.000 durationMs=0 | ancVersion=dev');
  assert.is(event.Version, '1.23');
});

test.run();
