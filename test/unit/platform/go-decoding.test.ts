// Tables of Go behaviour (issue 24) for the two decoders in platform/go: protojson's numbers given as
// JSON strings, and encoding/json's Unmarshal into typed structs. Each row is what the reference's Go
// code does with that input.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { protojsonFloat, protojsonInt, protojsonStringNumber } from '../../../src/platform/go/protojson.ts';
import { type GoType, goPlain, goUnmarshal } from '../../../src/platform/go/unmarshal.ts';

// The scanner's verdict on a string: no lone UTF-16 surrogate (json-scan.ts).
const wellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
const asInt = (s: string) => {
  const token = protojsonStringNumber(s, wellFormed(s));
  return token === undefined ? undefined : protojsonInt(token, 32);
};
const asFloat = (s: string) => {
  const token = protojsonStringNumber(s, wellFormed(s));
  return token === undefined ? undefined : protojsonFloat(token);
};

test('protojson: a numeric string is one number token read from its start (int32 and double)', () => {
  // [string, int32 reading, double reading]; undefined = the reference rejects the value.
  const table: Array<[string, number | undefined, number | undefined]> = [
    ['600', 600, 600],
    ['600 seconds', 600, 600],
    ['1,2', 1, 1],
    ['8:00', 8, 8],
    ['7 x', 7, 7],
    ['1e x', 1, undefined], // a dangling exponent: ignored by the integer reading, rejected by ParseFloat
    ['1e+ x', undefined, undefined], // a sign with no digits ends the token's number parts
    ['1.5', undefined, 1.5],
    ['1.50e1', 15, 15],
    ['1e3', 1000, 1000],
    ['100e-2', 1, 1],
    ['-0', 0, -0],
    ['5é', 5, 5], // a non-ASCII byte ends the token
    ['3/4', 3, 3],
    ['2147483647', 2147483647, 2147483647],
    ['2147483648', undefined, 2147483648],
    ['1 ', undefined, undefined], // trimming white space must change nothing
    [' 1', undefined, undefined],
    ['1\u0085', undefined, undefined], // Go's TrimSpace knows U+0085
    ['2x', undefined, undefined], // a letter straight after the digits
    ['1e3x', undefined, undefined],
    ['1.x', undefined, undefined],
    ['1e', undefined, undefined], // the token ends at the end of the text: "e" cannot start an exponent there
    ['01', undefined, undefined],
    ['+5', undefined, undefined],
    ['0x10', undefined, undefined],
    ['-', undefined, undefined],
    ['', undefined, undefined],
    ['"5"', undefined, undefined], // a string token, not a number
    ['1e400', undefined, undefined],
    ['600\ud800', undefined, undefined], // N5: a lone surrogate anywhere: the tokenizer rejects the string whole
    ['600 \udc00', undefined, undefined],
    ['600\ud83d\ude00', 600, 600], // a pair is text after the number
  ];
  for (const [input, int, float] of table) {
    assert.is(asInt(input), int, `int32 ${JSON.stringify(input)}`);
    const f = asFloat(input);
    assert.ok(Object.is(f, float), `double ${JSON.stringify(input)}: ${f}`);
  }
});

test('protojson: a JSON number token for an integer field: integral after the exponent, in range', () => {
  const table: Array<[string, number | undefined]> = [
    ['1.0', 1],
    ['0.1e1', 1],
    ['1.2e3', 1200],
    ['-2147483648', -2147483648],
    ['-2147483649', undefined],
    ['1.5', undefined],
    ['5e-1', undefined],
    ['1e21', undefined], // more than 20 digits after the shift
  ];
  for (const [raw, want] of table) assert.is(protojsonInt(raw, 32), want, raw);
});

const S = { kind: 'string' } as const;
const VERSION: GoType = {
  kind: 'struct',
  name: 'gpuVersion',
  fields: [
    { tag: 'renovateTag', type: S },
    { tag: 'latestVersion', type: S },
  ],
};
const IMAGE: GoType = {
  kind: 'struct',
  name: 'gpuContainerImage',
  fields: [
    { tag: 'downloadURL', type: S },
    { tag: 'gpuVersion', type: VERSION },
  ],
};
const COMPONENTS: GoType = {
  kind: 'struct',
  name: 'componentsConfig',
  fields: [{ tag: 'GPUContainerImages', type: { kind: 'slice', name: '[]gpuContainerImage', elem: IMAGE } }],
};
const decode = (text: string) => {
  const r = goUnmarshal(text, COMPONENTS);
  return { value: goPlain(r.value, COMPONENTS), error: r.error?.kind };
};
const img = (downloadURL: string, latestVersion = '', renovateTag = '') => ({ downloadURL, gpuVersion: { renovateTag, latestVersion } });

test('encoding/json: duplicate keys decode into the value already there', () => {
  const table: Array<[string, string, unknown]> = [
    [
      'objects merge',
      '{"GPUContainerImages":[{"downloadURL":"a","gpuVersion":{"latestVersion":"1-x"},"gpuVersion":{"renovateTag":"t"}}]}',
      [img('a', '1-x', 't')],
    ],
    ['null keeps a string', '{"GPUContainerImages":[{"downloadURL":"a","downloadURL":null}]}', [img('a')]],
    ['null keeps a struct', '{"GPUContainerImages":[{"gpuVersion":{"latestVersion":"1-x"},"gpuVersion":null}]}', [img('', '1-x')]],
    ['a null element keeps the element', '{"GPUContainerImages":[{"downloadURL":"a"}],"GPUContainerImages":[null]}', [img('a')]],
    [
      'a repeated array reuses the existing elements',
      '{"GPUContainerImages":[{"downloadURL":"a","gpuVersion":{"latestVersion":"1-x"}}],"GPUContainerImages":[{"downloadURL":"b"}]}',
      [img('b', '1-x')],
    ],
    [
      'even ones a shorter array cut off',
      '{"GPUContainerImages":[{"downloadURL":"a"},{"downloadURL":"b","gpuVersion":{"latestVersion":"2-y"}}],"GPUContainerImages":[{}],"GPUContainerImages":[{},{}]}',
      [img('a'), img('b', '2-y')],
    ],
    [
      'an empty array empties the slice',
      '{"GPUContainerImages":[{"downloadURL":"a"}],"GPUContainerImages":[],"GPUContainerImages":[{}]}',
      [img('')],
    ],
    ['null empties a slice', '{"GPUContainerImages":[{"downloadURL":"a"}],"GPUContainerImages":null}', null],
    ['keys match case-insensitively, the last one wins', '{"gpucontainerimages":[{"DOWNLOADURL":"a","downloadUrl":"b"}]}', [img('b')]],
    [
      'every matching key decodes, in document order',
      '{"GPUContainerImages":[{"downloadurl":"a","downloadURL":"b","DownloadUrl":"c"}]}',
      [img('c')],
    ],
    ['unknown keys are skipped, any type', '{"GPUContainerImages":[{"x":[1,{"y":null}]}],"Packages":{"a":1}}', [img('')]],
    ['a lone surrogate escape is U+FFFD', '{"GPUContainerImages":[{"downloadURL":"a\\ud800"}]}', [img('a\uFFFD')]],
    ['top-level null is a no-op', 'null', null],
  ];
  for (const [name, text, images] of table) assert.equal(decode(text), { value: { GPUContainerImages: images }, error: undefined }, name);
});

test('encoding/json: a wrong type in any declared field fails the call (after decoding the rest)', () => {
  const table: Array<[string, string]> = [
    [
      '{"GPUContainerImages":[{"gpuVersion":{"renovateTag":5}}]}',
      'json: cannot unmarshal number into Go struct field gpuVersion.GPUContainerImages.gpuVersion.renovateTag of type string',
    ],
    [
      '{"GPUContainerImages":{}}',
      'json: cannot unmarshal object into Go struct field componentsConfig.GPUContainerImages of type []gpuContainerImage',
    ],
    [
      '{"GPUContainerImages":[{"downloadURL":true}]}',
      'json: cannot unmarshal bool into Go struct field gpuContainerImage.GPUContainerImages.downloadURL of type string',
    ],
    [
      '{"GPUContainerImages":["x"]}',
      'json: cannot unmarshal string into Go struct field componentsConfig.GPUContainerImages of type gpuContainerImage',
    ],
    ['[]', 'json: cannot unmarshal array into Go value of type componentsConfig'],
  ];
  for (const [text, message] of table) {
    const r = goUnmarshal(text, COMPONENTS);
    assert.equal(r.error, { kind: 'type', message }, text);
  }
  // The first error is the one returned; decoding went on past it.
  const r = goUnmarshal('{"GPUContainerImages":[{"downloadURL":1,"gpuVersion":[]},{"downloadURL":"b"}]}', COMPONENTS);
  assert.match(r.error?.message ?? '', 'cannot unmarshal number');
  assert.equal(goPlain(r.value, COMPONENTS), { GPUContainerImages: [img(''), img('b')] });
});

test('encoding/json: syntax is checked first, nesting deeper than 10,000 fails', () => {
  const deep = (n: number) => `{"x":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
  assert.is(goUnmarshal(deep(10_000), COMPONENTS).error, undefined);
  assert.equal(goUnmarshal(deep(10_001), COMPONENTS).error?.kind, 'depth');
  assert.equal(goUnmarshal(deep(10_001), COMPONENTS).error?.message, 'exceeded max depth');
  for (const text of ['', '{', '{"GPUContainerImages":[{"downloadURL":1}] x', '\uFEFF{}', '{"a":1,}'])
    assert.is(goUnmarshal(text, COMPONENTS).error?.kind, 'syntax', JSON.stringify(text));
  // A syntax error after a type error: nothing is decoded, the syntax error is the one returned.
  assert.equal(goUnmarshal('{"GPUContainerImages":{},', COMPONENTS).error?.kind, 'syntax');
});

test.run();
