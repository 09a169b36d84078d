// Scalars of the kubeconfig YAML subset (see yaml.ts): plain, single- and double-quoted. Errors name the
// line only, never its text (D14).
import { AgentError } from '../platform/errors.ts';

export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

function fail(no: number, problem: string): never {
  throw new AgentError('ANC_KUBE', `line ${no}: ${problem}`);
}

export function parseScalar(text: string, no: number): string | null {
  if (text.startsWith('"')) return doubleQuoted(text, no);
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) fail(no, 'unterminated or malformed single-quoted string');
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (text === '~' || text === 'null' || text === 'Null' || text === 'NULL' || text === '') return null;
  return text;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/', '0': '\0', ' ': ' ', b: '\b', f: '\f', e: '\x1b' };

function doubleQuoted(text: string, no: number): string {
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      if (i !== text.length - 1) fail(no, 'text after a closing quote');
      return out;
    }
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = text[++i] ?? '';
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (width) {
      const hex = text.slice(i + 1, i + 1 + width);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) fail(no, 'bad escape in double-quoted string');
      out += String.fromCodePoint(parseInt(hex, 16));
      i += width;
    } else if (e in ESCAPES) {
      out += ESCAPES[e];
    } else {
      fail(no, 'bad escape in double-quoted string');
    }
  }
  fail(no, 'unterminated double-quoted string');
}
