// dnf/tdnf repository definitions (pure): the INI files of /etc/yum.repos.d (dnf.conf(5)), with the
// variables dnf substitutes in baseurl/gpgkey ($basearch, $arch, $releasever).

export interface YumRepo {
  id: string;
  baseurl: string;
  /** Key locations as written (`file://` paths are read as written, like dnf does). */
  gpgkeys: string[];
  gpgcheck: boolean;
  proxy?: string;
}

export function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  let last = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (/^\s*[#;]/.test(line) || line.trim() === '') continue;
    const section = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1]!.trim(), current);
      continue;
    }
    if (/^\s/.test(line) && current && last) {
      current.set(last, `${current.get(last)} ${line.trim()}`);
      continue;
    }
    const eq = line.indexOf('=');
    if (!current || eq < 0) continue;
    last = line.slice(0, eq).trim().toLowerCase();
    current.set(last, line.slice(eq + 1).trim());
  }
  return sections;
}

const truthy = (value: string | undefined, fallback: boolean) =>
  value === undefined ? fallback : ['1', 'yes', 'true', 'on'].includes(value.toLowerCase());

export function substituteVars(value: string, vars: Record<string, string>): string | undefined {
  let unknown = false;
  const out = value.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => {
    if (name in vars) return vars[name]!;
    unknown = true;
    return whole;
  });
  return unknown ? undefined : out;
}

/** The enabled repositories of one file that name a plain baseurl (metalink/mirrorlist are skipped). */
export function enabledRepos(text: string, vars: Record<string, string>, mainGpgcheck: boolean): YumRepo[] | string {
  const repos: YumRepo[] = [];
  for (const [id, fields] of parseIni(text)) {
    if (id === 'main' || !truthy(fields.get('enabled'), true)) continue;
    const rawBase = fields.get('baseurl')?.split(/[\s,]+/)[0];
    if (!rawBase) continue;
    const baseurl = substituteVars(rawBase, vars);
    const gpgkeys = (fields.get('gpgkey') ?? '')
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((k) => substituteVars(k, vars));
    if (baseurl === undefined || gpgkeys.includes(undefined)) return `repository ${id}: unknown variable in baseurl or gpgkey`;
    repos.push({
      id,
      baseurl,
      gpgkeys: gpgkeys as string[],
      gpgcheck: truthy(fields.get('gpgcheck'), mainGpgcheck),
      proxy: fields.get('proxy'),
    });
  }
  return repos;
}
