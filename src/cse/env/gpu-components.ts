// GPU driver metadata from the VHD's components.json (config-contract 3.3.8), decoded the way Go
// encoding/json fills the upstream structs: keys matched case-insensitively (last match wins), null
// leaves a field unset, unknown keys are ignored, a value of the wrong JSON type is an error.
import { AgentError } from '../../platform/errors.ts';
import { goEqualFold } from '../../platform/go/strings.ts';
import type { GoType } from '../../platform/go/unmarshal.ts';

const GO_STRING = { kind: 'string' } as const;
/** The reference's Go structs for components.json (componentsConfig and its parts): every declared field. */
export const COMPONENTS_GO_TYPE: GoType = {
  kind: 'struct',
  name: 'componentsConfig',
  pkg: 'gpu',
  fields: [
    {
      tag: 'GPUContainerImages',
      type: {
        kind: 'slice',
        name: '[]gpuContainerImage',
        elem: {
          kind: 'struct',
          name: 'gpuContainerImage',
          pkg: 'gpu',
          fields: [
            { tag: 'downloadURL', type: GO_STRING },
            {
              tag: 'gpuVersion',
              type: {
                kind: 'struct',
                name: 'gpuVersion',
                pkg: 'gpu',
                fields: [
                  { tag: 'renovateTag', type: GO_STRING },
                  { tag: 'latestVersion', type: GO_STRING },
                ],
              },
            },
          ],
        },
      },
    },
  ],
};

export interface GpuDriver {
  driver: string;
  suffix: string;
}

export interface GpuDrivers {
  cudaLts?: GpuDriver;
  cuda?: GpuDriver;
  grid?: GpuDriver;
  gridV20?: GpuDriver;
}

const REPOS = new Map<string, keyof GpuDrivers>([
  ['aks-gpu-cuda-lts', 'cudaLts'],
  ['aks-gpu-cuda', 'cuda'],
  ['aks-gpu-grid', 'grid'],
  ['aks-gpu-grid-v20', 'gridV20'],
]);

class TypeMismatch {
  constructor(readonly message: string) {}
}

const jsonKind = (v: unknown): string =>
  Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;

/** The value of `field` in a decoded JSON object, matched like Go (case-insensitive, last wins). */
function field(obj: Record<string, unknown>, name: string): unknown {
  let found: unknown;
  for (const [key, value] of Object.entries(obj)) if (goEqualFold(key, name) && value !== null) found = value;
  return found;
}

function expect(value: unknown, kind: 'object' | 'array' | 'string', where: string, goType: string): void {
  if (value === undefined || jsonKind(value) === kind) return;
  throw new TypeMismatch(`json: cannot unmarshal ${jsonKind(value)} into Go struct field ${where} of type ${goType}`);
}

function imageEntries(components: unknown): Array<{ url: string; latest: string }> {
  if (components === null || components === undefined) return [];
  expect(components, 'object', 'Components', 'Components');
  const images = field(components as Record<string, unknown>, 'GPUContainerImages');
  expect(images, 'array', 'Components.GPUContainerImages', '[]GPUContainerImage');
  return ((images as unknown[] | undefined) ?? []).flatMap((image) => {
    if (image === null) return [];
    expect(image, 'object', 'Components.GPUContainerImages', 'GPUContainerImage');
    const o = image as Record<string, unknown>;
    const url = field(o, 'downloadURL');
    expect(url, 'string', 'GPUContainerImage.downloadURL', 'string');
    const version = field(o, 'gpuVersion');
    expect(version, 'object', 'GPUContainerImage.gpuVersion', 'GPUVersion');
    const latest = version === undefined ? undefined : field(version as Record<string, unknown>, 'latestVersion');
    expect(latest, 'string', 'GPUContainerImage.gpuVersion.latestVersion', 'string');
    return [{ url: (url as string | undefined) ?? '', latest: (latest as string | undefined) ?? '' }];
  });
}

/** Driver version and image suffix per repository; throws ANC_COMPONENTS on a JSON type mismatch. */
export function parseGpuComponents(components: unknown, sourcePath: string): GpuDrivers {
  let entries: Array<{ url: string; latest: string }>;
  try {
    entries = imageEntries(components);
  } catch (error) {
    if (!(error instanceof TypeMismatch)) throw error;
    throw new AgentError(
      'ANC_COMPONENTS',
      `failed to load GPU config: parse ${sourcePath}: failed to unmarshal components.json: ${error.message}`,
    );
  }
  const drivers: GpuDrivers = {};
  for (const { url, latest } of entries) {
    const parts = latest.split('-');
    if (parts.length !== 2) continue;
    const repo = url.slice(url.lastIndexOf('/') + 1).split(':')[0]!;
    const slot = REPOS.get(repo);
    if (slot) drivers[slot] = { driver: parts[0]!, suffix: parts[1]! };
  }
  return drivers;
}
