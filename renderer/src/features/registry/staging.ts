/**
 * Files readied for upload (drafts) and how they reach the backend. The renderer never reads a
 * file's bytes: in Electron main streams a dropped file from its path on disk; in browser mode the
 * page hands the File once to the backend's loopback endpoint (`stageWithFetch`), which keeps it
 * aside for main.
 */
import type { PackageType, UploadCandidate, UploadSource } from '../../../../common/registry';
import type { Result } from '../../../../common/result';

/** A file dropped or chosen for an item (a module, a training script, an ML model), readied for upload: where it is, what main found, the version and platform to send it as. */
export interface UploadDraft {
  readonly key: number;
  readonly fileName: string;
  readonly sizeBytes: number;
  /** null while the file is being handed to the backend and inspected. */
  readonly source: UploadSource | null;
  readonly state: 'preparing' | 'ready' | 'queuing';
  /** Why the file cannot be uploaded (from inspection or staging); null: it can. */
  readonly problem: string | null;
  readonly proposal: UploadCandidate['proposal'] | null;
  readonly version: string;
  readonly platform: string;
  /** Why queuing it failed (the service or main refused). */
  readonly error: string | null;
}

/** Hands a File to the backend in browser mode; answers its staged id. */
export type StageFile = (file: File) => Promise<Result<{ stagedId: string; fileName: string }>>;

/**
 * Files this page hands over at once: under the backend's cap (STAGING_CONCURRENCY in
 * main/web/server.ts, which answers more with 429), so a drop of many files never meets it and a
 * second page still fits.
 */
const STAGE_AT_ONCE = 2;
/** A 429 (other pages' files take the backend's places) is tried again, after the wait it names, up to this many times in all. */
const STAGE_TRIES = 5;
const stageSlots = { free: STAGE_AT_ONCE, waiting: [] as (() => void)[] };

async function inStageSlot<T>(run: () => Promise<T>): Promise<T> {
  if (stageSlots.free > 0) stageSlots.free -= 1;
  else await new Promise<void>((resolve) => stageSlots.waiting.push(resolve));
  try {
    return await run();
  } finally {
    const next = stageSlots.waiting.shift();
    if (next) next();
    else stageSlots.free += 1;
  }
}

/** The wait a 429 names (Retry-After, in seconds), within 0–10 s. */
function retryAfterMs(response: Response): number {
  const header = response.headers.get('retry-after');
  const seconds = header === null ? NaN : Number(header);
  return Number.isFinite(seconds) ? Math.min(10, Math.max(0, seconds)) * 1000 : 2000;
}

/**
 * Browser mode's way in for a file: one POST of its bytes to the page's own origin (main/web/server.ts).
 * A refusal's message is the backend's, which says what happened and what to do (a full disk, the
 * staging bound, a file too large).
 */
export const stageWithFetch: StageFile = (file) =>
  inStageSlot(async () => {
    try {
      for (let attempt = 1; ; attempt++) {
        const response = await fetch(`/uploads?name=${encodeURIComponent(file.name)}`, { method: 'POST', body: file, credentials: 'same-origin' });
        const body = (await response.json().catch(() => null)) as { stagedId?: unknown; fileName?: unknown; error?: unknown } | null;
        if (response.ok && typeof body?.stagedId === 'string') return { ok: true, value: { stagedId: body.stagedId, fileName: typeof body.fileName === 'string' ? body.fileName : file.name } };
        if (response.status === 429 && attempt < STAGE_TRIES) {
          await new Promise((resolve) => setTimeout(resolve, retryAfterMs(response)));
          continue;
        }
        const why = typeof body?.error === 'string' ? body.error : `the app's backend answered ${response.status}`;
        // 507: no room on this machine, 429: busy with other files; both pass once something changes there.
        const kind = [400, 408, 411, 413].includes(response.status) ? 'invalid' : response.status === 429 || response.status === 507 ? 'conflict' : 'internal';
        return { ok: false, error: { kind, message: `Couldn't hand ${file.name} to the app: ${why}` } };
      }
    } catch (e) {
      return { ok: false, error: { kind: 'offline', message: `Couldn't hand ${file.name} to the app's backend: ${e instanceof Error ? e.message : String(e)}` } };
    }
  });

/** Electron has no loopback endpoint: a file without a path on disk (dragged out of another app's page) cannot be sent. */
export const noStaging: StageFile = async (file) => ({
  ok: false,
  error: { kind: 'invalid', message: `${file.name} is not a file on disk (was it dragged out of another app?): save it to a folder first, then drop or choose it from there.` },
});

/** Item types whose own page (not a module's page) takes uploads: a training script's builds, a model trained elsewhere. Archives stay read-only. */
export const UPLOAD_TYPES: readonly PackageType[] = ['ml_training', 'ml_model'];
