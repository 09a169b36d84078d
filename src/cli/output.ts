// `-o text|json|yaml` (one flag on every command that prints a result): text for people, JSON or YAML for
// machines. Commands hand over the value and, for text, how to say it; a generic `key: value` layout is
// used when they have nothing better, so fields other issues add show up without a change here.
import { AgentError } from '../platform/errors.ts';

export const OUTPUT_FORMATS = ['text', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const OUTPUT_OPTION = {
  flag: '-o, --output <format>',
  description: 'Output format: text (default, for people), json or yaml (for machines)',
  values: OUTPUT_FORMATS,
} as const;

export function outputFormat(value: unknown): OutputFormat {
  if (value === undefined) return 'text';
  const text = String(value);
  if ((OUTPUT_FORMATS as readonly string[]).includes(text)) return text as OutputFormat;
  throw new AgentError('ANC_USAGE', `unknown output format "${text}"; use one of ${OUTPUT_FORMATS.join(', ')}`, {
    hint: 'Pass -o text, -o json or -o yaml right after the command words (-o wide where a wider view exists: status).',
  });
}

/** `key: value` lines; nested objects indent, arrays list one item a line. */
export function plainText(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object') return `${indent}${String(value)}\n`;
  const lines: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    if (Array.isArray(item)) {
      lines.push(`${indent}${key}:${item.length === 0 ? ' (none)' : ''}`);
      for (const entry of item)
        lines.push(`${indent}  - ${typeof entry === 'object' && entry !== null ? JSON.stringify(entry) : String(entry)}`);
    } else if (item !== null && typeof item === 'object') {
      lines.push(`${indent}${key}:`, plainText(item, `${indent}  `).trimEnd());
    } else {
      lines.push(`${indent}${key}: ${item === null ? '-' : String(item)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Renders `value` in the chosen format (JSON indented, for people reading it too); `text` defaults to the generic layout. */
export async function render(format: OutputFormat | undefined, value: unknown, text: (value: any) => string = plainText): Promise<string> {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  if (format === 'yaml') {
    const { stringify } = await import('yaml');
    return stringify(value);
  }
  return text(value);
}
