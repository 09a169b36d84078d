// Reading a package index as it streams by (Packages stanzas, primary.xml <package> blocks): the text is
// cut into records at `separator` and only the records naming one of our packages are kept, so an index
// of thousands of entries never sits in memory whole. A record longer than MAX_RECORD is refused.
import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';
import { integrityError } from './errors.ts';

const MAX_RECORD = 1024 * 1024;

export interface IndexScan {
  sink: Writable;
  /** The kept records, each ending with the separator. */
  kept(): string;
}

export function scanIndex(what: string, separator: string, wanted: (record: string) => boolean): IndexScan {
  const decoder = new StringDecoder('utf8');
  const kept: string[] = [];
  let carry = '';
  const consume = (text: string, last: boolean) => {
    carry += text;
    let at = 0;
    for (let end = carry.indexOf(separator); end >= 0; end = carry.indexOf(separator, at)) {
      const record = carry.slice(at, end + separator.length);
      if (wanted(record)) kept.push(record);
      at = end + separator.length;
    }
    carry = carry.slice(at);
    if (last && carry && wanted(carry)) kept.push(carry);
    if (carry.length > MAX_RECORD) throw integrityError(`${what}: a record longer than ${MAX_RECORD} bytes`);
  };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        consume(decoder.write(chunk), false);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    final(callback) {
      try {
        consume(decoder.end(), true);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  return { sink, kept: () => kept.join('') };
}
