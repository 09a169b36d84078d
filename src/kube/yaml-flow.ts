// Flow collections (`{a: b, c: [d]}`), which include JSON: `preferences: {}` in every kubectl-written
// kubeconfig, and whole kubeconfigs written as JSON. Scalars stay strings; errors name the line only.
import { AgentError } from '../platform/errors.ts';
import { parseScalar, type YamlValue } from './yaml-scalar.ts';

export function parseFlow(source: string, firstLine: number): YamlValue {
  const parser = new FlowParser(source, firstLine);
  const value = parser.value();
  parser.end();
  return value;
}

class FlowParser {
  private i = 0;
  constructor(private readonly s: string, private readonly firstLine: number) {}

  private fail(problem: string): never {
    const line = this.firstLine + (this.s.slice(0, this.i).match(/\n/g)?.length ?? 0);
    throw new AgentError('ANC_KUBE', `line ${line}: ${problem}`);
  }

  private ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  end(): void {
    this.ws();
    if (this.i < this.s.length) this.fail('unexpected text after a flow collection');
  }

  value(): YamlValue {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.mapping();
    if (c === '[') return this.sequence();
    return this.scalar(false);
  }

  private mapping(): { [key: string]: YamlValue } {
    const out: { [key: string]: YamlValue } = {};
    this.i++;
    for (;;) {
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        return out;
      }
      const key = this.scalar(true) ?? '';
      this.ws();
      let value: YamlValue = null;
      if (this.s[this.i] === ':') {
        this.i++;
        this.ws();
        value = this.s[this.i] === ',' || this.s[this.i] === '}' ? null : this.value();
      }
      if (Object.prototype.hasOwnProperty.call(out, key)) this.fail('duplicate mapping key');
      out[key] = value;
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== '}') this.fail('expected , or } in a flow mapping');
    }
  }

  private sequence(): YamlValue[] {
    const out: YamlValue[] = [];
    this.i++;
    for (;;) {
      this.ws();
      if (this.s[this.i] === ']') {
        this.i++;
        return out;
      }
      out.push(this.value());
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== ']') this.fail('expected , or ] in a flow sequence');
    }
  }

  private scalar(isKey: boolean): string | null {
    const start = this.i;
    const c = this.s[this.i];
    if (c === undefined) this.fail('unexpected end of a flow collection');
    if (c === '"' || c === "'") {
      this.i++;
      while (this.i < this.s.length && this.s[this.i] !== c) this.i += c === '"' && this.s[this.i] === '\\' ? 2 : c === "'" && this.s.startsWith("''", this.i) ? 2 : 1;
      if (this.i >= this.s.length) this.fail('unterminated quoted string');
      this.i++;
      return parseScalar(this.s.slice(start, this.i).replace(/\n\s*/g, ' '), this.lineNo());
    }
    if (/[&*!|>{[]/.test(c)) this.fail('unsupported value in a flow collection');
    // Plain scalar: ends at , ] } or at `: ` / `:` before a flow indicator (keys end at any `:`).
    while (this.i < this.s.length) {
      const ch = this.s[this.i]!;
      if (ch === ',' || ch === ']' || ch === '}') break;
      if (ch === ':' && (isKey || /[\s,\]}]/.test(this.s[this.i + 1] ?? ' '))) break;
      if (ch === '#' && /\s/.test(this.s[this.i - 1] ?? '')) this.fail('comments inside flow collections are not supported');
      this.i++;
    }
    return parseScalar(this.s.slice(start, this.i).replace(/\s+/g, ' ').trim(), this.lineNo());
  }

  private lineNo(): number {
    return this.firstLine + (this.s.slice(0, this.i).match(/\n/g)?.length ?? 0);
  }
}
