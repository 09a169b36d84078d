// Node custom data application (spec 10.1; since HEAD by download-hotfix when scripts_version is a higher
// patch, spec 11.2): the write_files entries of nodecustomdata.yml are written in order, each path placed
// under the sandbox root.
import { gunzipSync } from 'node:zlib';
import { dirname, posix } from 'node:path';
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { goParseUint } from '../platform/go/strconv.ts';
import { parseWriteFiles, type YamlEntry } from './cloud-config.ts';
import { yamlDocumentText } from './yaml-input.ts';
import { isNotFound, pathError } from '../platform/path-error.ts';

export interface WriteFile {
  path: string;
  data: Uint8Array;
  mode: number;
}

const fail = (message: string): never => {
  throw new AgentError('ANC_NODE_CUSTOM_DATA', message);
};

function field(entry: YamlEntry, key: string): string | Uint8Array {
  const value = entry[key];
  if (value === undefined || value === null) return '';
  if (typeof value === 'object' && 'unsupported' in value) return fail(`yaml: line ${value.unsupported}: ${key} must be a scalar`);
  return value;
}

const text = (value: string | Uint8Array) => (typeof value === 'string' ? value : Buffer.from(value).toString('utf8'));
const bytes = (value: string | Uint8Array) => (typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'utf8')) : value);

/** Go strconv.ParseUint(s, 8, 32); only the permission bits count. Empty means 0644. */
function parsePermissions(value: string): number {
  if (value === '') return 0o644;
  const mode = goParseUint(value, 8, 32);
  if (mode === undefined) return fail(`parse permissions: strconv.ParseUint: parsing "${value}": invalid syntax`);
  return Number(mode & 0o777n);
}

function decode(content: string | Uint8Array, encoding: string, maxBytes?: number): Uint8Array {
  if (encoding === '') return bytes(content);
  if (encoding === 'gzip') {
    try {
      // With a cap (the script payload build), inflating stops at it: memory stays bounded by the cap.
      return new Uint8Array(gunzipSync(bytes(content), maxBytes === undefined ? {} : { maxOutputLength: maxBytes }));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        return fail(`gunzip content: inflates to more than ${maxBytes} bytes`);
      return fail(`gunzip content: ${errorMessage(error)}`);
    }
  }
  if (encoding === 'base64') {
    const compact = text(content).replace(/[\r\n]/g, '');
    if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return fail('illegal base64 data');
    return new Uint8Array(Buffer.from(compact, 'base64'));
  }
  return fail(`unsupported encoding "${encoding}"`);
}

/** One entry checked and decoded (no I/O), or an AgentError with the spec's cause text. `maxBytes` caps the decoded size. */
export function toWriteFile(entry: YamlEntry, maxBytes?: number): WriteFile {
  const path = text(field(entry, 'path'));
  try {
    if (path === '') fail('path is required');
    const owner = text(field(entry, 'owner'));
    if (owner !== '' && owner !== 'root') fail(`unsupported owner "${owner}"`);
    const mode = parsePermissions(text(field(entry, 'permissions')));
    const data = decode(field(entry, 'content'), text(field(entry, 'encoding')), maxBytes);
    if (maxBytes !== undefined && data.length > maxBytes)
      fail(`content is ${data.length} bytes after decoding, over the ${maxBytes}-byte cap`);
    return { path, mode, data };
  } catch (error) {
    return fail(`apply nodecustomdata write file ${path}: ${errorMessage(error)}`);
  }
}

/**
 * Applies the file when it exists (missing = no-op). Parent directories are created 0755; the mode
 * applies on creation only (existing files are truncated and keep theirs), like the reference.
 * Returns the on-node paths written.
 */
export function applyNodeCustomData(deps: Pick<Deps, 'fs' | 'paths'>): string[] {
  const file = deps.paths.nodeCustomData;
  let source: Uint8Array;
  try {
    source = deps.fs.readFile(file, 'config');
  } catch (error) {
    if (isNotFound(error)) return [];
    return fail(`read nodecustomdata ${file}: ${pathError('open', file, error)}`);
  }
  let entries: YamlEntry[];
  try {
    // N16: as strict as yaml.v3 about the bytes (encoding, invalid UTF-8, control characters) before parsing.
    entries = parseWriteFiles(yamlDocumentText(source));
  } catch (error) {
    return fail(`unmarshal nodecustomdata ${file}: ${errorMessage(error)}`);
  }
  const written: string[] = [];
  for (const entry of entries) {
    const wf = toWriteFile(entry);
    // Normalise first so `..` cannot climb out of the sandbox root.
    const onNode = posix.normalize(posix.isAbsolute(wf.path) ? wf.path : posix.join('/', wf.path));
    const target = deps.paths.under(onNode);
    try {
      deps.fs.mkdirp(dirname(target), 0o755);
      deps.fs.writeFile(target, wf.data, { mode: wf.mode });
    } catch (error) {
      fail(`apply nodecustomdata write file ${wf.path}: ${pathError('open', target, error)}`);
    }
    written.push(onNode);
  }
  return written;
}
