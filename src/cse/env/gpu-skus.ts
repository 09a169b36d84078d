// GPU SKU classes (config-contract 3.3.8, from upstream pkg/gpu/skus.go). Keys are lower-cased VM sizes.
import { goToLower } from '../../platform/go/strings.ts';

/** RTX Pro 6000 sizes: driver type `grid-v20`. */
export const GRID_V20_SKUS: ReadonlySet<string> = new Set([
  'standard_nc24lds_xl_rtxpro6000bse_v6',
  'standard_nc36ds_xl_rtxpro6000bse_v6',
  'standard_nc36lds_xl_rtxpro6000bse_v6',
  'standard_nc72ds_xl_rtxpro6000bse_v6',
  'standard_nc72lds_xl_rtxpro6000bse_v6',
  'standard_nc144ds_xl_rtxpro6000bse_v6',
  'standard_nc144lds_xl_rtxpro6000bse_v6',
  'standard_nc288ds_xl_rtxpro6000bse_v6',
  'standard_nc288lds_xl_rtxpro6000bse_v6',
  'standard_nc128ds_xl_rtxpro6000bse_v6',
  'standard_nc128lds_xl_rtxpro6000bse_v6',
  'standard_nc256ds_xl_rtxpro6000bse_v6',
  'standard_nc256lds_xl_rtxpro6000bse_v6',
  'standard_nc320ds_xl_rtxpro6000bse_v6',
  'standard_nc320lds_xl_rtxpro6000bse_v6',
]);

/** Converged A10 sizes: driver type `grid`. */
export const GRID_SKUS: ReadonlySet<string> = new Set([
  'standard_nv6ads_a10_v5',
  'standard_nv12ads_a10_v5',
  'standard_nv18ads_a10_v5',
  'standard_nv36ads_a10_v5',
  'standard_nv72ads_a10_v5',
  'standard_nv36adms_a10_v5',
  'standard_nc8ads_a10_v4',
  'standard_nc16ads_a10_v4',
  'standard_nc32ads_a10_v4',
]);

/** Sizes that need the NVIDIA fabric manager; every other size (incl. the NC A100 v4 ones) is false. */
export const FABRIC_MANAGER_SKUS: ReadonlySet<string> = new Set([
  'standard_nd96asr_v4',
  'standard_nd112asr_a100_v4',
  'standard_nd120asr_a100_v4',
  'standard_nd96amsr_a100_v4',
  'standard_nd112amsr_a100_v4',
  'standard_nd120amsr_a100_v4',
  'standard_nd96ams_a100_v4',
  'standard_nd96ams_v4',
  'standard_nd46s_h100_v5',
  'standard_nd48s_h100_v5',
  'standard_nd50s_h100_v5',
  'standard_nd92is_h100_v5',
  'standard_nd96is_h100_v5',
  'standard_nd100is_h100_v5',
  'standard_nd92isr_h100_v5',
  'standard_nd96isr_h100_v5',
  'standard_nd100isr_h100_v5',
  'standard_nd96is_h200_v5',
  'standard_nd96isr_h200_v5',
  'standard_nd96isrf_h200_v5',
]);

/** NCv1: starts with `standard_nc` and has no `_v` (driver `cuda`, version cuda-470.82.01). */
export const isNcV1 = (lowerSize: string): boolean => lowerSize.startsWith('standard_nc') && !lowerSize.includes('_v');

export type GpuSkuClass = 'grid-v20' | 'grid' | 'ncv1' | 'default';

export function gpuSkuClass(vmSize: string): GpuSkuClass {
  const lower = goToLower(vmSize);
  if (GRID_V20_SKUS.has(lower)) return 'grid-v20';
  if (GRID_SKUS.has(lower)) return 'grid';
  if (isNcV1(lower)) return 'ncv1';
  return 'default';
}
