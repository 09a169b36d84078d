// The YAML subset kubeconfig files are written in (kubectl, kubeadm, the AKS bootstrap templates): block
// mappings and sequences (indented or not), flow collections (so a JSON kubeconfig works too), plain,
// single- and double-quoted scalars, literal/folded block scalars, comments and `---`. Every scalar stays
// a string (no type coercion is needed: only strings are read). Anchors, aliases and tags are refused.
// Errors name a line number, never the line's text: the file carries tokens and private keys (D14).
import { AgentError } from '../platform/errors.ts';
import { parseFlow } from './yaml-flow.ts';
import { parseScalar, type YamlValue } from './yaml-scalar.ts';

export type { YamlValue } from './yaml-scalar.ts';


interface Line {
  indent: number;
  text: string;
  no: number;
}

function fail(no: number, problem: string): never {
  throw new AgentError('ANC_KUBE', `line ${no}: ${problem}`);
}

/** Removes a comment: `#` at the start or after whitespace, outside quotes. */
function stripComment(text: string): string {
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s:[{,-]/.test(text[i - 1]!)) quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      return text.slice(0, i);
    }
  }
  return text;
}

function splitLines(source: string): Line[] {
  const out: Line[] = [];
  source.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((raw, index) => {
    if (/^\t/.test(raw)) fail(index + 1, 'tab characters are not allowed for indentation');
    const indent = raw.length - raw.trimStart().length;
    out.push({ indent, text: raw.slice(indent).trimEnd(), no: index + 1 });
  });
  return out;
}

export function parseYaml(source: string): YamlValue {
  const parser = new BlockParser(splitLines(source));
  return parser.document();
}

class BlockParser {
  private pos = 0;
  constructor(private readonly lines: Line[]) {}

  document(): YamlValue {
    this.skipBlank();
    if (this.peek()?.text === '---') {
      this.pos++;
      this.skipBlank();
    }
    const first = this.peek();
    if (!first || first.text === '...') return null;
    const value = this.block(first.indent);
    this.skipBlank();
    const rest = this.peek();
    if (rest && rest.text !== '...' && rest.text !== '---') fail(rest.no, 'unexpected content (bad indentation?)');
    if (rest?.text === '---') fail(rest.no, 'more than one document');
    return value;
  }

  private peek(): Line | undefined {
    return this.lines[this.pos];
  }

  private skipBlank(): void {
    while (this.pos < this.lines.length && stripComment(this.lines[this.pos]!.text).trim() === '') this.pos++;
  }

  /** A node whose first line starts at exactly `indent`. */
  private block(indent: number): YamlValue {
    const line = this.peek()!;
    const text = stripComment(line.text).trimEnd();
    if (text === '-' || text.startsWith('- ')) return this.sequence(indent);
    if (findMappingColon(text) >= 0) return this.mapping(indent);
    this.pos++;
    return this.inlineValue(text, line, indent - 1);
  }

  private sequence(indent: number): YamlValue[] {
    const items: YamlValue[] = [];
    for (;;) {
      this.skipBlank();
      const line = this.peek();
      if (!line || line.indent !== indent) break;
      const text = stripComment(line.text).trimEnd();
      if (text !== '-' && !text.startsWith('- ')) break;
      if (text === '-') {
        this.pos++;
        items.push(this.nested(indent, true));
        continue;
      }
      // `- key: v` or `- - x`: rewrite the line as if the item started two columns further in.
      const rest = text.slice(1);
      const shift = 1 + (rest.length - rest.trimStart().length);
      this.lines[this.pos] = { indent: indent + shift, text: rest.trimStart(), no: line.no };
      items.push(this.block(indent + shift));
    }
    return items;
  }

  private mapping(indent: number): { [key: string]: YamlValue } {
    const out: { [key: string]: YamlValue } = {};
    for (;;) {
      this.skipBlank();
      const line = this.peek();
      if (!line || line.indent !== indent) break;
      const text = stripComment(line.text).trimEnd();
      const colon = findMappingColon(text);
      if (colon < 0) break;
      if (text === '-' || text.startsWith('- ')) break;
      const key = scalarKey(text.slice(0, colon).trim(), line.no);
      if (Object.prototype.hasOwnProperty.call(out, key)) fail(line.no, 'duplicate mapping key');
      const rest = text.slice(colon + 1).trim();
      this.pos++;
      out[key] = rest === '' ? this.nested(indent, false) : this.inlineValue(this.continued(rest, indent), line, indent);
    }
    return out;
  }

  /** A plain scalar may continue on more-indented lines (folded with single spaces). */
  private continued(text: string, indent: number): string {
    if (/^["'{[|>]/.test(text)) return text;
    let out = text;
    for (;;) {
      const next = this.peek();
      if (!next || next.indent <= indent || stripComment(next.text).trim() === '') return out;
      out += ' ' + stripComment(next.text).trim();
      this.pos++;
    }
  }

  /** The value of `key:` / `-` with nothing after it: a deeper block, a same-column sequence, or null. */
  private nested(indent: number, inSequence: boolean): YamlValue {
    this.skipBlank();
    const next = this.peek();
    if (!next) return null;
    if (next.indent > indent) return this.block(next.indent);
    const text = stripComment(next.text);
    if (!inSequence && next.indent === indent && (text === '-' || text.startsWith('- '))) return this.sequence(indent);
    return null;
  }

  /** A value written on the same line as its key (or a whole line when the node is a scalar). */
  private inlineValue(text: string, line: Line, parentIndent: number): YamlValue {
    if (/^[&*!]/.test(text)) fail(line.no, 'anchors, aliases and tags are not supported');
    if (text.startsWith('|') || text.startsWith('>')) return this.blockScalar(text, line, parentIndent);
    if (text.startsWith('{') || text.startsWith('[')) {
      let source = text;
      while (!flowBalanced(source)) {
        const next = this.peek();
        if (!next) fail(line.no, 'unterminated flow collection');
        source += '\n' + stripComment(next.text).trim();
        this.pos++;
      }
      return parseFlow(source, line.no);
    }
    return parseScalar(text, line.no);
  }

  private blockScalar(header: string, line: Line, parentIndent: number): string {
    const match = /^([|>])([+-]?)\s*$/.exec(header);
    if (!match) fail(line.no, 'unsupported block scalar header');
    const body: string[] = [];
    let indent = -1;
    while (this.pos < this.lines.length) {
      const next = this.lines[this.pos]!;
      if (next.text === '') {
        body.push('');
        this.pos++;
        continue;
      }
      if (indent < 0) indent = next.indent;
      if (next.indent < indent || next.indent <= parentIndent) break;
      body.push(' '.repeat(next.indent - indent) + next.text);
      this.pos++;
    }
    while (body.length && body[body.length - 1] === '') {
      body.pop();
      if (match[2] === '+') body.push('');
    }
    const joined = match[1] === '|' ? body.join('\n') : body.join(' ').replace(/ ?\n ?/g, '\n');
    return match[2] === '-' ? joined : joined + '\n';
  }
}

/** Index of the `:` that ends a mapping key (followed by a space or the end), outside quotes; -1 if none. */
function findMappingColon(text: string): number {
  if (text.startsWith('{') || text.startsWith('[')) return -1;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if ((c === '"' || c === "'") && i === 0) {
      quote = c;
    } else if (c === ':' && (i + 1 === text.length || text[i + 1] === ' ')) {
      return i;
    }
  }
  return -1;
}

function scalarKey(text: string, no: number): string {
  const value = parseScalar(text, no);
  return value ?? '';
}

function flowBalanced(source: string): boolean {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return depth <= 0 && !quote;
}
