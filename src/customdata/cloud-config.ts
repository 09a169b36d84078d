// The write_files entries of a cloud-config document (spec 10.1), read with the `yaml` library. The
// failsafe schema keeps every scalar a string (`permissions: 0644` stays '0644'); `~`/`null`/empty are
// null and `!!binary` content is base64-decoded (strictly, like Go's yaml). Other top-level keys
// (bootcmd, runcmd, ...) are parsed but never converted, so their aliases cannot expand. Only the first
// document counts, like Go's yaml.Unmarshal. Errors name a line number and a problem, never the text.
import { LineCounter, isMap, isScalar, isSeq, parseAllDocuments, type Node, type ScalarTag } from 'yaml';
import { AgentError } from '../platform/errors.ts';

export type YamlScalar = string | Uint8Array | null;
/** One write_files entry: key -> scalar; non-scalar values are kept as a marker with their line. */
export type YamlEntry = Record<string, YamlScalar | { unsupported: number }>;

const fail = (line: number, problem: string): never => {
  throw new AgentError('ANC_NODE_CUSTOM_DATA', `yaml: line ${line}: ${problem}`);
};

const binary: ScalarTag = {
  tag: 'tag:yaml.org,2002:binary',
  identify: (value) => value instanceof Uint8Array,
  resolve(source, onError) {
    const compact = source.replace(/\s+/g, '');
    if (compact.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return new Uint8Array(Buffer.from(compact, 'base64'));
    onError('invalid base64 in a !!binary scalar');
    return source;
  },
};

export function parseWriteFiles(text: string): YamlEntry[] {
  const counter = new LineCounter();
  const options = { schema: 'failsafe', prettyErrors: false, logLevel: 'error', lineCounter: counter } as const;
  const doc = parseAllDocuments(text, { ...options, customTags: ['null', binary] })[0];
  // An offset at the end of input (an unterminated quote) counts as the last non-blank line.
  const lineAt = (offset: number) => counter.linePos(Math.min(offset, Math.max(0, text.trimEnd().length - 1))).line;
  const lineOf = (node: Node) => lineAt(node.range?.[0] ?? 0);
  const isNull = (node: unknown) => node === null || node === undefined || (isScalar(node) && node.value === null);
  if (!doc) return [];
  const error = doc.errors[0];
  if (error) fail(lineAt(error.pos[0]), `${error.message.replace(/[:;][\s\S]*$/, '')} (${error.code})`);
  if (isNull(doc.contents)) return [];
  if (!isMap(doc.contents)) return fail(lineOf(doc.contents!), 'the document is not a mapping');
  const files = doc.contents.get('write_files', true);
  if (isNull(files)) return [];
  if (!isSeq(files)) return fail(lineOf(files as Node), 'write_files must be a list');
  return files.items.map((item) => {
    if (!isMap(item)) return fail(lineOf((item ?? files) as Node), 'write_files entries must be mappings');
    const entry: YamlEntry = {};
    for (const { key, value } of item.items) {
      if (!isScalar(key)) return fail(lineOf(item), 'write_files keys must be scalars');
      if (isNull(value)) entry[String(key.value)] = null;
      else if (isScalar(value)) entry[String(key.value)] = value.value as string | Uint8Array;
      else entry[String(key.value)] = { unsupported: lineOf(value as Node) };
    }
    return entry;
  });
}
