// The slice of YAML that node custom data needs (spec 10.1): a top-level mapping whose `write_files`
// key holds a list of flat mappings with scalar values: plain, 'single', "double" (with escapes),
// block scalars (`|`, `>`, chomping and indentation indicators) and `!!binary` content. Other top-level
// keys (bootcmd, runcmd, ...) are skipped without being interpreted. Anything outside this subset under
// write_files is reported with its line number instead of being guessed at.
import { AgentError } from '../platform/errors.ts';

export type YamlScalar = string | Uint8Array | null;
/** One write_files entry: key -> scalar; non-scalar values are kept as a marker with their line. */
export type YamlEntry = Record<string, YamlScalar | { unsupported: number }>;

interface Line {
  no: number;
  indent: number;
  text: string;
  raw: string;
}

const fail = (no: number, message: string): never => {
  throw new AgentError('ANC_NODE_CUSTOM_DATA', `yaml: line ${no}: ${message}`);
};
const isBlank = (l: Line) => l.text === '';
const isComment = (l: Line) => l.text.startsWith('#');
const KEY = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{[\-?:][^:#]*?|-[^\s:#][^:#]*?)\s*:(?:\s+(.*))?$/;

function splitKey(line: Line): [key: string, rest: string] {
  const match = KEY.exec(line.text);
  if (!match) return fail(line.no, 'expected a "key: value" mapping entry');
  const raw = match[1]!;
  const key = raw.startsWith('"') || raw.startsWith("'") ? quoted([{ ...line, text: raw }], raw[0]!, line.no) : raw.trim();
  return [key, (match[2] ?? '').trim()];
}

/** Lines after `from` that belong to a node indented deeper than `parent` (blank lines included). */
function childBlock(lines: Line[], from: number, parent: number): Line[] {
  let end = from;
  while (end < lines.length && (isBlank(lines[end]!) || lines[end]!.indent > parent)) end++;
  return lines.slice(from, end);
}

function unescapeDouble(text: string, no: number): string {
  const simple: Record<string, string> = {
    '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
    ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029',
  };
  return text.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/gs, (_m, esc: string) => {
    if (esc.length > 1) return String.fromCodePoint(parseInt(esc.slice(1), 16));
    const out = simple[esc];
    return out ?? fail(no, `invalid escape "\\${esc}" in a double-quoted scalar`);
  });
}

/** A quoted scalar that may continue on the block's lines; folds line breaks like YAML. */
function quoted(lines: Line[], quote: string, no: number): string {
  const all = lines.map((l) => l.text).join('\n');
  let i = 1;
  while (i < all.length) {
    if (quote === '"' && all[i] === '\\') i += 2;
    else if (all[i] === quote && quote === "'" && all[i + 1] === "'") i += 2;
    else if (all[i] === quote) break;
    else i++;
  }
  if (i >= all.length) fail(no, 'unterminated quoted scalar');
  const after = all.slice(i + 1).trim();
  if (after !== '' && !after.startsWith('#')) fail(no, 'unexpected text after a quoted scalar');
  const body = fold(all.slice(1, i), quote === '"');
  return quote === '"' ? unescapeDouble(body, no) : body.replace(/''/g, "'");
}

/** Flow folding: a single line break becomes a space, n empty lines become n newlines. */
function fold(text: string, escapes: boolean): string {
  const parts = text.split('\n');
  if (parts.length === 1) return text;
  let out = parts[0]!.replace(/[ \t]+$/, '');
  let pendingBreaks = 0;
  for (const [n, part] of parts.slice(1).entries()) {
    const trimmed = n === parts.length - 2 ? part.replace(/^[ \t]+/, '') : part.trim();
    if (trimmed === '') {
      pendingBreaks++;
      continue;
    }
    if (escapes && out.endsWith('\\') && !out.endsWith('\\\\')) out = out.slice(0, -1);
    else out += pendingBreaks > 0 ? '\n'.repeat(pendingBreaks) : ' ';
    out += trimmed;
    pendingBreaks = 0;
  }
  return out;
}

function blockScalar(header: string, block: Line[], parent: number, no: number): string {
  const match = /^([|>])([+-]?)([1-9]?)([+-]?)\s*(#.*)?$/.exec(header);
  if (!match) return fail(no, `invalid block scalar header "${header}"`);
  const chomp = match[2] || match[4];
  const first = block.find((l) => !isBlank(l));
  const indent = match[3] ? parent + Number(match[3]) : first ? first.indent : parent + 1;
  const body = block.map((l) => {
    if (isBlank(l)) return l.raw.length > indent ? l.raw.slice(indent) : '';
    if (l.indent < indent) fail(l.no, 'block scalar line is less indented than its first line');
    return l.raw.slice(indent);
  });
  let trailing = 0;
  while (trailing < body.length && body[body.length - 1 - trailing]!.trim() === '') trailing++;
  const content = body.slice(0, body.length - trailing);
  let text = match[1] === '|' ? content.join('\n') : foldBlock(content);
  if (content.length === 0) return chomp === '+' ? '\n'.repeat(trailing) : '';
  if (chomp !== '-') text += '\n';
  if (chomp === '+') text += '\n'.repeat(trailing);
  return text;
}

/** Folded (`>`) block content: breaks become spaces, except around empty or more-indented lines. */
function foldBlock(lines: string[]): string {
  let out = '';
  let previous: string | undefined;
  let empties = 0;
  for (const line of lines) {
    if (line.trim() === '') {
      empties++;
      continue;
    }
    if (previous === undefined) out += '\n'.repeat(empties) + line;
    else if (/^\s/.test(line) || /^\s/.test(previous)) out += '\n'.repeat(empties + 1) + line;
    else out += (empties === 0 ? ' ' : '\n'.repeat(empties)) + line;
    previous = line;
    empties = 0;
  }
  return out;
}

function scalar(rest: string, block: Line[], parent: number, no: number): YamlScalar | { unsupported: number } {
  let text = rest;
  let binary = false;
  const tag = /^(!\S*)\s*(.*)$/.exec(text);
  if (tag) {
    if (tag[1] === '!!binary') binary = true;
    else if (tag[1] !== '!!str') fail(no, `unsupported tag ${tag[1]}`);
    text = tag[2]!;
  }
  const value = plainOrQuoted(text, block, parent, no);
  if (!binary || value === null || typeof value !== 'string') return value;
  const compact = value.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) fail(no, 'invalid base64 in a !!binary scalar');
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

function plainOrQuoted(text: string, block: Line[], parent: number, no: number): YamlScalar | { unsupported: number } {
  const content = block.filter((l) => !isBlank(l));
  if (text.startsWith('|') || text.startsWith('>')) return blockScalar(text, block, parent, no);
  if (text.startsWith('"') || text.startsWith("'")) {
    return quoted([{ no, indent: 0, text, raw: text }, ...block], text[0]!, no);
  }
  if (text === '' || text.startsWith('#')) return content.length === 0 ? null : { unsupported: no };
  if (/^[[{&*]/.test(text)) return { unsupported: no };
  const nested = content.find((l) => /:(\s|$)/.test(l.text.replace(/\s+#.*$/, '')) || /^-(\s|$)/.test(l.text));
  if (nested) fail(nested.no, 'mapping values or list items are not allowed inside a plain scalar');
  const plain = [text, ...content.map((l) => l.text)].map((t) => t.replace(/\s+#.*$/, '')).join(' ');
  return plain === '~' || plain === 'null' || plain === 'Null' || plain === 'NULL' ? null : plain;
}

function mapping(lines: Line[], indent: number): YamlEntry {
  const entry: YamlEntry = {};
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line) || isComment(line)) {
      i++;
      continue;
    }
    if (line.indent !== indent) fail(line.no, 'unexpected indentation in a write_files entry');
    const [key, rest] = splitKey(line);
    const block = childBlock(lines, i + 1, indent);
    entry[key] = scalar(rest, block, indent, line.no);
    i += 1 + block.length;
  }
  return entry;
}

function sequence(lines: Line[], keyLine: Line): YamlEntry[] {
  const first = lines.find((l) => !isBlank(l) && !isComment(l));
  if (!first) return [];
  const dash = first.indent;
  const entries: YamlEntry[] = [];
  let i = lines.indexOf(first);
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line) || (isComment(line) && line.indent <= dash)) {
      i++;
      continue;
    }
    if (line.indent !== dash || !/^-(\s|$)/.test(line.text)) fail(line.no, `expected a "- " list item under ${keyLine.text}`);
    const after = line.text.slice(1).replace(/^\s+/, '');
    const itemIndent = dash + line.text.length - after.length;
    const body = childBlock(lines, i + 1, dash);
    if (after === '' && body.every((l) => isBlank(l) || isComment(l))) fail(line.no, 'empty write_files entry');
    const head: Line[] = after === '' ? [] : [{ no: line.no, indent: itemIndent, text: after, raw: ' '.repeat(itemIndent) + after }];
    const itemLines = [...head, ...body];
    const firstKey = itemLines.find((l) => !isBlank(l) && !isComment(l))!;
    if (!KEY.test(firstKey.text)) fail(firstKey.no, 'write_files entries must be mappings');
    entries.push(mapping(itemLines, firstKey.indent));
    i += 1 + body.length;
  }
  return entries;
}

/** The write_files entries of a cloud-config document, in order ([] when the key is absent). */
export function parseWriteFiles(text: string): YamlEntry[] {
  const lines: Line[] = text.split(/\r?\n/).map((raw, n) => {
    const indent = raw.length - raw.replace(/^ +/, '').length;
    return { no: n + 1, indent, text: raw.slice(indent).replace(/\s+$/, ''), raw };
  });
  let entries: YamlEntry[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line) || isComment(line) || line.text === '---' || line.text === '...') {
      i++;
      continue;
    }
    if (line.indent !== 0) fail(line.no, 'unexpected indentation at the top level');
    const [key, rest] = splitKey(line);
    let end = i + 1;
    // A top-level key's value: deeper lines, blank/comment lines and `- ` items at column 0.
    while (end < lines.length && (lines[end]!.indent > 0 || isBlank(lines[end]!) || isComment(lines[end]!) || /^-(\s|$)/.test(lines[end]!.text))) end++;
    if (key === 'write_files') {
      if (rest === '[]') entries = [];
      else if (rest !== '' && !rest.startsWith('#')) fail(line.no, 'write_files must be a block list');
      else entries = sequence(lines.slice(i + 1, end), line);
    }
    i = end;
  }
  return entries;
}
