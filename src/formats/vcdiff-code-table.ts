// The default VCDIFF instruction code table, built as RFC 3284 section 5.6 lays it out: 256 entries, each
// one or two instructions (type, size, address mode). Size 0 means "the size follows in the instruction
// section".

export interface Instruction {
  type: 'add' | 'run' | 'copy';
  size: number;
  mode: number;
}

export type CodeTableEntry = readonly [Instruction | undefined, Instruction | undefined];

const add = (size: number): Instruction => ({ type: 'add', size, mode: 0 });
const copy = (size: number, mode: number): Instruction => ({ type: 'copy', size, mode });

function build(): readonly CodeTableEntry[] {
  const table: CodeTableEntry[] = [[{ type: 'run', size: 0, mode: 0 }, undefined]];
  for (let size = 0; size <= 17; size++) table.push([add(size), undefined]);
  for (let mode = 0; mode <= 8; mode++) {
    table.push([copy(0, mode), undefined]);
    for (let size = 4; size <= 18; size++) table.push([copy(size, mode), undefined]);
  }
  for (let mode = 0; mode <= 5; mode++) {
    for (let addSize = 1; addSize <= 4; addSize++) {
      for (let copySize = 4; copySize <= 6; copySize++) table.push([add(addSize), copy(copySize, mode)]);
    }
  }
  for (let mode = 6; mode <= 8; mode++) {
    for (let addSize = 1; addSize <= 4; addSize++) table.push([add(addSize), copy(4, mode)]);
  }
  for (let mode = 0; mode <= 8; mode++) table.push([copy(4, mode), add(1)]);
  return table;
}

const TABLE = build();

export function defaultCodeTable(): readonly CodeTableEntry[] {
  return TABLE;
}
