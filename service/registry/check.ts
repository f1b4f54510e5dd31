/**
 * The registry's consistency check: do the database's file and upload rows and the data dir's
 * bytes agree? `npm run service -- --check --data-dir DIR` runs it whole (hashing every file) and
 * prints what it found; the service runs its cheap part (presence and sizes, no hashing) at every
 * start and logs what it found, so a disk restored from an old backup or a file removed by hand is
 * noticed before a client downloads a missing file.
 *
 * It reports; it repairs nothing. A row whose bytes are gone cannot be made whole here, and a
 * file no row names may be someone's evidence: the operator decides (an unrecorded `.part` is
 * already removed by the upload sweep at start).
 */
import type Database from 'better-sqlite3';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { RegistryFiles } from './files';

/** One disagreement between the rows and the disk. */
export interface RegistryFinding {
  readonly kind:
    | 'file-missing' // a listed file has no bytes on disk
    | 'file-size' // a listed file's bytes are not its recorded size
    | 'file-sha256' // a listed file's bytes do not hash to its recorded SHA-256
    | 'file-unrecorded' // bytes in the files folder that no row lists
    | 'part-unrecorded' // an upload's `.part` that no upload row names
    | 'part-missing' // an upload row whose `.part` is gone though it recorded bytes
    | 'part-short'; // a `.part` shorter than the bytes its row recorded
  /** The file on disk, relative to the data dir. */
  readonly path: string;
  /** What is wrong, in words for people. */
  readonly detail: string;
}

export interface RegistryCheck {
  readonly findings: readonly RegistryFinding[];
  /** File rows checked, `.part` files and upload rows checked. */
  readonly files: number;
  readonly uploads: number;
  /** Whether file contents were hashed (the whole check) or only sizes (the cheap part). */
  readonly hashed: boolean;
}

interface FileRow {
  readonly item_id: string;
  readonly version: string;
  readonly platform: string;
  readonly size_bytes: number;
  readonly sha256: string;
}

/** Check every registry file row and every upload against the data dir; `hash` reads every file whole. */
export async function checkRegistry(db: Database.Database, files: RegistryFiles, dataDir: string, options: { hash: boolean }): Promise<RegistryCheck> {
  const findings: RegistryFinding[] = [];
  const at = (path: string) => relative(dataDir, path);
  const rows = db.prepare('SELECT item_id, version, platform, size_bytes, sha256 FROM registry_files ORDER BY item_id, version, platform').all() as FileRow[];
  const listed = new Set<string>();
  for (const row of rows) {
    const path = files.path(row.item_id, row.version, row.platform);
    listed.add(path);
    const what = `version ${row.version} for ${row.platform} of registry item ${row.item_id}`;
    const size = await stat(path).then(
      (s) => s.size,
      () => null,
    );
    if (size === null) {
      findings.push({ kind: 'file-missing', path: at(path), detail: `${what} is listed, but its file is missing` });
      continue;
    }
    if (size !== row.size_bytes) {
      findings.push({ kind: 'file-size', path: at(path), detail: `${what} is listed with ${row.size_bytes} bytes, but its file has ${size}` });
      continue;
    }
    if (options.hash) {
      const sha256 = await files.sha256(path);
      if (sha256 !== row.sha256) findings.push({ kind: 'file-sha256', path: at(path), detail: `${what} is listed with SHA-256 ${row.sha256}, but its file hashes to ${sha256}` });
    }
  }
  for (const path of await filesUnder(join(dataDir, 'registry', 'files'))) {
    if (!listed.has(path)) findings.push({ kind: 'file-unrecorded', path: at(path), detail: 'no registry file row lists this file (left by an interrupted completion, or put there by hand)' });
  }

  const uploads = db.prepare('SELECT item_id, version, platform, committed FROM registry_uploads').all() as { item_id: string; version: string; platform: string; committed: number }[];
  const named = new Set<string>();
  for (const upload of uploads) {
    const path = files.partPath(upload.item_id, upload.version, upload.platform);
    named.add(path);
    const size = await stat(path).then(
      (s) => s.size,
      () => null,
    );
    const what = `the upload of version ${upload.version} for ${upload.platform} of registry item ${upload.item_id}`;
    if (size === null && upload.committed > 0) findings.push({ kind: 'part-missing', path: at(path), detail: `${what} recorded ${upload.committed} bytes, but its .part file is missing` });
    else if (size !== null && size < upload.committed) findings.push({ kind: 'part-short', path: at(path), detail: `${what} recorded ${upload.committed} bytes, but its .part file has ${size}` });
  }
  for (const path of await filesUnder(join(dataDir, 'registry', 'uploads'))) {
    if (!named.has(path)) findings.push({ kind: 'part-unrecorded', path: at(path), detail: 'no upload row names this .part file' });
  }
  return { findings, files: rows.length, uploads: uploads.length, hashed: options.hash };
}

/** Every regular file below `dir` (none when it does not exist). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The check's outcome as lines for people: a summary, then one line per finding. */
export function describeCheck(check: RegistryCheck): string[] {
  const what = `${check.files} registry file${check.files === 1 ? '' : 's'} (${check.hashed ? 'sizes and SHA-256' : 'sizes'}) and ${check.uploads} upload${check.uploads === 1 ? '' : 's'} checked`;
  if (check.findings.length === 0) return [`registry check: ${what}: the database and the disk agree`];
  return [
    `registry check: ${what}: ${check.findings.length} problem${check.findings.length === 1 ? '' : 's'}`,
    ...check.findings.map((f) => `  ${f.kind}: ${f.path}: ${f.detail}`),
  ];
}
