// Child process for the atomic-write kill test: rewrites one file forever, alternating two large
// contents, until it is killed.
import { atomicWrite } from '../../src/platform/fs.ts';

const target = process.argv[2]!;
const size = 8 * 1024 * 1024;
const contents = [Buffer.alloc(size, 'a'), Buffer.alloc(size, 'b')];
process.stdout.write('ready\n');
for (let i = 0; ; i++) atomicWrite(target, contents[i % 2]!, { mode: 0o644 });
