// Reading the --image-manifest files a tooling command is given: each parsed with the one manifest parser,
// an error naming the file.
import type { ImageManifest } from '../image/manifest.ts';
import { parseManifest } from '../image/manifest.ts';
import type { Deps } from '../platform/deps.ts';
import { readConfigFile } from './config-input.ts';

export function readImageManifests(deps: Deps, files: readonly string[]): Array<{ source: string; manifest: ImageManifest }> {
  return files.map((source) => ({ source, manifest: parseManifest(readConfigFile(deps, source, 'image manifest'), source) }));
}
