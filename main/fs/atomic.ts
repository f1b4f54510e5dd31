import { renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Write a file so that a crash leaves either the old or the new content, never half of one:
 * write a sibling temp file, then rename over the target (atomic on one filesystem).
 */
export function writeFileAtomic(path: string, data: string, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, data, { mode });
  renameSync(temp, path);
}
