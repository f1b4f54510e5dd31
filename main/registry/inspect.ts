/**
 * A module file looked at before anything is sent: that it is a regular file within the service's
 * bound, that it is a gzipped tarball (the registry's format), and what its meta.json (the module's
 * manifest, at the archive's root) proposes for version and platform. The file is read as a stream:
 * nothing of it is held, and the main thread only sees chunks between which it stays free.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { MAX_MODULE_FILE_BYTES, moduleVersion, modulePlatform, type UploadCandidate, type UploadSource } from '../../common/registry';

/** meta.json is a small manifest; a bigger one is not read (the proposal is then left to the user). */
const MAX_META_BYTES = 256 * 1024;

type Proposal = UploadCandidate['proposal'];
const NO_PROPOSAL: Proposal = { version: null, platform: null, moduleId: null, entrypoint: null };

const validVersion = (v: unknown): string | null => (typeof v === 'string' && moduleVersion.safeParse(v).success ? v.trim() : null);
const validPlatform = (v: unknown): string | null => (typeof v === 'string' && modulePlatform.safeParse(v).success ? v.trim() : null);

/** What a meta.json proposes: its version, and a platform from `build` (`{os, arch}`, one `arch` platform, or `platform`). */
export function proposalFromMeta(text: string): Proposal {
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch {
    return NO_PROPOSAL;
  }
  if (typeof meta !== 'object' || meta === null) return NO_PROPOSAL;
  const m = meta as Record<string, unknown>;
  const build = typeof m.build === 'object' && m.build !== null ? (m.build as Record<string, unknown>) : {};
  const arch = build.arch;
  const platform =
    validPlatform(m.platform) ??
    (typeof build.os === 'string' && typeof arch === 'string' ? validPlatform(`${build.os}/${arch}`) : null) ??
    (Array.isArray(arch) && arch.length === 1 ? validPlatform(arch[0]) : null) ??
    (typeof arch === 'string' ? validPlatform(arch) : null);
  return {
    version: validVersion(m.version),
    platform,
    moduleId: typeof m.module_id === 'string' && m.module_id.length <= 400 ? m.module_id : null,
    entrypoint: typeof m.entrypoint === 'string' && m.entrypoint.length <= 1000 ? m.entrypoint : null,
  };
}

/** What a file name suggests, e.g. `stepper-1.4.0-linux-arm64.tar.gz`: a fallback for what meta.json does not say. */
export function proposalFromName(fileName: string): Pick<Proposal, 'version' | 'platform'> {
  const version = /(?:^|[^0-9.])v?((?:0|[1-9]\d{0,8})\.(?:0|[1-9]\d{0,8})\.(?:0|[1-9]\d{0,8}))(?![0-9])/.exec(fileName)?.[1] ?? null;
  const p = /(linux|darwin|windows|android)[-_/](amd64|arm64|arm32|arm|386|x86_64|aarch64|any)/i.exec(fileName);
  const arch = p ? ({ x86_64: 'amd64', aarch64: 'arm64' } as Record<string, string>)[(p[2] ?? '').toLowerCase()] ?? (p[2] ?? '').toLowerCase() : null;
  return { version, platform: p && arch ? `${(p[1] ?? '').toLowerCase()}/${arch}` : null };
}

async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/**
 * Read the archive: every header must parse (a gzipped file that is not a tarball fails here), and
 * meta.json at its root is kept. Stops at the first problem.
 */
function readArchive(path: string): Promise<{ entries: number; meta: string | null; sha256: string }> {
  return new Promise((resolve, reject) => {
    let entries = 0;
    let meta: string | null = null;
    let settled = false;
    const input = createReadStream(path, { highWaterMark: 256 * 1024 });
    // The file's SHA-256 on the same pass: the upload then checks the service's against it without hashing again.
    const hash = createHash('sha256');
    input.on('data', (chunk) => hash.update(chunk as Buffer));
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      input.destroy();
      reject(e instanceof Error ? e : new Error(String(e)));
    };
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        entries += 1;
        const name = entry.path.replace(/^\.\//, '');
        if (name === 'meta.json' && entry.size <= MAX_META_BYTES) {
          const chunks: Buffer[] = [];
          entry.on('data', (c: Buffer) => chunks.push(c));
          entry.on('end', () => {
            meta = Buffer.concat(chunks).toString('utf8');
          });
        } else entry.resume();
      },
    });
    parser.on('error', fail);
    parser.on('warn', (_code: string, message: string | Error) => fail(message instanceof Error ? message : new Error(message)));
    parser.on('end', () => {
      if (settled) return;
      settled = true;
      resolve({ entries, meta, sha256: hash.digest('hex') });
    });
    input.on('error', fail);
    input.pipe(parser as unknown as NodeJS.WritableStream);
  });
}

/**
 * The checks that cost nothing (a regular file, not empty, within the bound, gzip's magic bytes):
 * run again when a file is queued, which `registry.inspect` looked into already.
 */
export async function quickCheck(path: string, fileName = basename(path)): Promise<{ sizeBytes: number; problem: string | null }> {
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) return { sizeBytes: 0, problem: `${fileName} is not a file.` };
    size = s.size;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { sizeBytes: 0, problem: code === 'ENOENT' ? `${fileName} is no longer there.` : `${fileName} cannot be read (${code ?? 'error'}).` };
  }
  if (size === 0) return { sizeBytes: 0, problem: `${fileName} is empty.` };
  if (size > MAX_MODULE_FILE_BYTES) return { sizeBytes: size, problem: `${fileName} is ${(size / 1024 / 1024).toFixed(0)} MiB; the registry takes files of at most ${MAX_MODULE_FILE_BYTES / 1024 / 1024} MiB.` };
  if (!(await isGzip(path))) return { sizeBytes: size, problem: `${fileName} is not a gzipped tarball (.tar.gz): modules are uploaded as one, with meta.json and the entrypoint inside.` };
  return { sizeBytes: size, problem: null };
}

/** Inspect one file; a problem is an answer (`problem`), not a failure. */
export async function inspectFile(source: UploadSource, path: string, fileName = basename(path)): Promise<UploadCandidate> {
  const answer = (sizeBytes: number, problem: string | null, proposal: Proposal = NO_PROPOSAL): UploadCandidate => ({ source, fileName, sizeBytes, sha256: null, problem, proposal });
  const quick = await quickCheck(path, fileName);
  if (quick.problem) return answer(quick.sizeBytes, quick.problem);
  const size = quick.sizeBytes;
  try {
    const { entries, meta, sha256 } = await readArchive(path);
    if (entries === 0) return answer(size, `${fileName} is a gzipped file but holds no tar entries.`);
    const fromName = proposalFromName(fileName);
    const fromMeta = meta === null ? NO_PROPOSAL : proposalFromMeta(meta);
    return { ...answer(size, null, { ...fromMeta, version: fromMeta.version ?? fromName.version, platform: fromMeta.platform ?? fromName.platform }), sha256 };
  } catch (e) {
    return answer(size, `${fileName} is not a valid tarball (${e instanceof Error ? e.message : String(e)}).`);
  }
}

/** Inspect each source, in order. */
export async function inspectFiles(
  sources: readonly UploadSource[],
  resolve: (source: UploadSource) => { path: string; fileName: string },
  inspected?: (path: string, candidate: UploadCandidate) => Promise<void>,
): Promise<UploadCandidate[]> {
  const out: UploadCandidate[] = [];
  for (const source of sources) {
    let file: { path: string; fileName: string };
    try {
      file = resolve(source);
    } catch (e) {
      // One source that cannot be had (a staged file gone, a path refused) is that file's problem, not the batch's.
      out.push({ source, fileName: 'path' in source ? basename(source.path) : 'file', sizeBytes: 0, sha256: null, problem: e instanceof Error ? e.message : String(e), proposal: NO_PROPOSAL });
      continue;
    }
    const candidate = await inspectFile(source, file.path, file.fileName);
    await inspected?.(file.path, candidate);
    out.push(candidate);
  }
  return out;
}
