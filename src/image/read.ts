// The --image-manifest files a tooling command is given, each read once and parsed with the one parser;
// an unreadable file is an error naming it.
import type { Deps } from '../platform/deps.ts';
import { AgentError, errorMessage } from '../platform/errors.ts';
import { type ImageManifest, parseManifest } from './manifest.ts';

export interface GivenManifest {
  source: string;
  manifest: ImageManifest;
}

export function readManifestFile(deps: Pick<Deps, 'fs'>, source: string): GivenManifest {
  let text: string;
  try {
    text = deps.fs.readText(source, 'config');
  } catch (error) {
    throw new AgentError('ANC_USAGE', `cannot read image manifest ${source}: ${errorMessage(error)}`, { cause: error });
  }
  return { source, manifest: parseManifest(text, source) };
}

export const readManifestFiles = (deps: Pick<Deps, 'fs'>, files: readonly string[]) => files.map((f) => readManifestFile(deps, f));
