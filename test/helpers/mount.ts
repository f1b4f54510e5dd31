import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let probed: boolean | undefined;

/**
 * Whether this process may mount a tmpfs (root with the mount capability, as on CI here): the way
 * tests get a real, small disk to fill. Where it may not, those tests cannot make a full disk.
 */
export function canMount(): boolean {
  if (probed !== undefined) return probed;
  const probe = mkdtempSync(join(tmpdir(), 'fleet-mount-probe-'));
  try {
    probed = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]).status === 0;
    if (probed) spawnSync('umount', [probe]);
    return probed;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
