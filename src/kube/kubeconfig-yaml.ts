// Kubeconfig text -> plain values, through the `yaml` library (block, flow and JSON styles all work).
// The failsafe schema keeps every scalar a string (`token: 123456` stays '123456'); only the null forms
// (`~`, `null`, an empty value) become null. Aliases are refused, so a billion-laughs document cannot
// expand. Errors name a line number and a problem, never the source text: the file carries tokens and
// private keys (D14). Loaded only on the check-hotfix path (commands lazy-import kube/client.ts).
import { LineCounter, type YAMLError, isScalar, parseDocument, visit } from 'yaml';
import { AgentError } from '../platform/errors.ts';

export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

function fail(line: number, problem: string): never {
  throw new AgentError('ANC_KUBE', `line ${line}: ${problem}`);
}

/** The library's problem text without anything after a colon (where it would quote the source). */
function yamlProblem(error: YAMLError): string {
  return `${error.message.replace(/[:;][\s\S]*$/, '')} (${error.code})`;
}

/** 1-based line of a source offset; an offset at the end of input counts as the last non-blank line. */
function lineAt(source: string, counter: LineCounter, offset: number): number {
  const lastContent = Math.max(0, source.trimEnd().length - 1);
  return counter.linePos(Math.min(offset, lastContent)).line;
}

export function parseYaml(source: string): YamlValue {
  const counter = new LineCounter();
  const doc = parseDocument(source, {
    schema: 'failsafe',
    customTags: ['null'],
    prettyErrors: false,
    logLevel: 'error',
    lineCounter: counter,
    // The library's duplicate-key check compares every pair (quadratic: a 1 MiB file of keys took 74 s);
    // the Set below does the same check in linear time.
    uniqueKeys: false,
  });
  const error = doc.errors[0];
  if (error) fail(lineAt(source, counter, error.pos[0]), yamlProblem(error));
  visit(doc, {
    Alias(_key, node) {
      fail(lineAt(source, counter, node.range?.[0] ?? 0), 'aliases are not supported');
    },
    Map(_key, node) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key))
          fail(
            lineAt(source, counter, (pair.key as { range?: number[] } | null)?.range?.[0] ?? 0),
            'Map keys must be unique (DUPLICATE_KEY)',
          );
        seen.add(key);
      }
    },
  });
  return doc.toJS({ maxAliasCount: 0 }) as YamlValue;
}
