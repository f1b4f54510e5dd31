/**
 * ML training in the renderer: an organization's training page (its jobs, filtered by status, with
 * the selection to delete), the open job, the pending/running summary (the badge), the submit form,
 * and what happens when a watched job ends (an in-app notice, and in browser mode a desktop
 * notification the page shows itself; Electron's main shows a native one).
 *
 * Main pushes `training.changed` (naming organizations) while jobs move: the open page and the open
 * job are read again only when their organization is named. Every call's failure is kept to show,
 * never thrown.
 */
import type { z } from 'zod';
import type { FleetBridge } from '../../../../common/bridge';
import type { BridgeError, Result } from '../../../../common/result';
import {
  ACTIVE_TRAINING_STATUSES,
  FINAL_TRAINING_STATUSES,
  MAX_TRAINING_TAGS,
  trainingRequests,
  trainingTag,
  type ModelType,
  type TrainingChanged,
  type TrainingDataset,
  type TrainingEnded,
  type TrainingJob,
  type TrainingJobs,
  type TrainingModel,
  type TrainingScript,
  type TrainingStatus,
  type TrainingSummary,
} from '../../../../common/training';
import { fieldErrors } from '../../lib/validation';
import type { Notices } from '../../lib/state/notices.svelte';
import { formatDuration, sentence } from '../../lib/format';
import { Synced } from '../../lib/state/synced.svelte';
import { Latest } from '../../lib/state/latest';

export const TRAINING_STATUS_LABEL: Record<TrainingStatus, string> = {
  pending: 'Pending',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  canceling: 'Canceling',
  canceled: 'Canceled',
};

export const MODEL_TYPE_LABEL: Record<ModelType, string> = {
  single_label_classification: 'Single-label classification',
  multi_label_classification: 'Multi-label classification',
  object_detection: 'Object detection',
};

/** The filter's choices, in the order shown: '' is "All". */
export const TRAINING_FILTERS: readonly (TrainingStatus | '')[] = ['', 'pending', 'running', 'succeeded', 'failed', 'canceling', 'canceled'];

/** Still moving by itself (main polls it). */
export function jobActive(job: TrainingJob): boolean {
  return ACTIVE_TRAINING_STATUSES.includes(job.status);
}

/** Ended: only these can be deleted. */
export function jobFinal(job: TrainingJob): boolean {
  return FINAL_TRAINING_STATUSES.includes(job.status);
}

/** Can still be asked to stop (a canceling job already was). */
export function jobCancelable(job: TrainingJob): boolean {
  return job.status === 'pending' || job.status === 'running';
}

/** "yard-detector 4": how a job is named everywhere (rows, dialogs, notifications). */
export function jobLabel(job: Pick<TrainingJob, 'modelName' | 'modelVersion'>): string {
  return `${job.modelName} ${job.modelVersion}`;
}

/** A registry item id's name (`acme:trainer` → `trainer`). */
function itemName(itemId: string): string {
  return itemId.slice(itemId.lastIndexOf(':') + 1) || itemId;
}

/** What trains: the model type, or `custom: <script>@<version>`. */
export function jobKind(job: TrainingJob): string {
  if (job.custom) return `custom: ${itemName(job.registryItemId)}@${job.registryItemVersion}`;
  return job.modelType ? MODEL_TYPE_LABEL[job.modelType] : 'Unknown type';
}

/** Seconds the job ran: from starting to ending, or to `now` while it is still under way; null if it never started. */
export function jobSeconds(job: TrainingJob, now: number): number | null {
  const start = job.startedOn ? Date.parse(job.startedOn) : Number.NaN;
  if (Number.isNaN(start)) return null;
  const end = job.endedOn ? Date.parse(job.endedOn) : jobActive(job) ? now : Number.NaN;
  if (Number.isNaN(end)) return null;
  return Math.max(0, (end - start) / 1000);
}

/** "12 min 5 s", or null when it never started. */
export function jobDuration(job: TrainingJob, now: number): string | null {
  const seconds = jobSeconds(job, now);
  return seconds === null ? null : formatDuration(seconds);
}

/** What to tell people when a job ended: the notification's title and body (a toast says both). */
export function endedMessage(job: TrainingJob): { title: string; body: string } {
  const what = jobLabel(job);
  if (job.status === 'succeeded') {
    const took = jobDuration(job, Date.now());
    return { title: `Training succeeded: ${what}`, body: took ? `Trained in ${took}.` : 'The model is trained.' };
  }
  if (job.status === 'failed') {
    const error = job.error;
    return { title: `Training failed: ${what}`, body: error ? `${error.message}${error.code ? ` (${error.code})` : ''}` : 'The service gave no reason.' };
  }
  return { title: `Training ${TRAINING_STATUS_LABEL[job.status].toLowerCase()}: ${what}`, body: '' };
}

// --- desktop notifications (browser mode) ---

export type NotifyPermission = 'default' | 'granted' | 'denied' | 'unsupported';

/**
 * Where desktop notifications go: the page's Notification API in browser mode (`browserNotifier`),
 * a fake in tests. Permission is asked only from what the user did (submitting, "Notify me").
 */
export interface Notifier {
  permission(): NotifyPermission;
  /** Call from a user gesture only (before any await in its handler). */
  request(): Promise<NotifyPermission>;
  show(notice: { title: string; body: string; tag: string }, onclick: () => void): void;
}

/** The page's own Notification API; clicking one focuses the window, then runs `onclick`. */
export function browserNotifier(scope: { Notification?: typeof Notification; focus?: () => void } = globalThis as never): Notifier {
  const api = () => scope.Notification;
  return {
    permission: () => api()?.permission ?? 'unsupported',
    async request() {
      const N = api();
      if (!N) return 'unsupported';
      try {
        return await N.requestPermission();
      } catch {
        return N.permission;
      }
    },
    show(notice, onclick) {
      const N = api();
      if (!N || N.permission !== 'granted') return;
      try {
        const shown = new N(notice.title, { body: notice.body, tag: notice.tag });
        shown.onclick = () => {
          scope.focus?.();
          shown.close();
          onclick();
        };
      } catch {
        // A browser that allows only service-worker notifications: the in-app notice said the same.
      }
    },
  };
}

// --- an organization's jobs ---

/** A job `training.delete` could not delete, and why. */
export interface DeleteFailure {
  readonly jobId: string;
  readonly label: string;
  readonly message: string;
}

/** One organization's training page: its jobs (newest first), the status shown, and the jobs selected to delete. */
export class TrainingList {
  readonly orgId: string;
  readonly #bridge: FleetBridge;
  status = $state<TrainingStatus | null>(null);
  jobs = $state.raw<readonly TrainingJob[]>([]);
  /** The jobs came from the cache: the service could not be reached. */
  fromCache = $state(false);
  syncedAt = $state<string | null>(null);
  loaded = $state(false);
  loading = $state(false);
  error = $state.raw<BridgeError | null>(null);
  /** Finished jobs ticked for "Delete selected". */
  selected = $state.raw<readonly string[]>([]);
  /** What the last delete could not delete. */
  deleteFailures = $state.raw<readonly DeleteFailure[]>([]);
  /** Reads started before an action's answer was put would show an older job: `put` supersedes them. */
  readonly #latest = new Latest();
  /** An event asked for a reload while one was on its way. */
  #again = false;

  constructor(bridge: FleetBridge, orgId: string) {
    this.#bridge = bridge;
    this.orgId = orgId;
  }

  /** Read the jobs (with `status`, a new filter). A newer read wins over an older one. */
  async load(status?: TrainingStatus | null): Promise<Result<TrainingJobs>> {
    if (status !== undefined) this.status = status;
    const read = this.#latest.read();
    this.loading = true;
    const result = await this.#bridge.invoke('training.list', { orgId: this.orgId, status: this.status });
    if (!read.newest) return result;
    this.loading = false;
    // Started before an action's answer was shown: the event that answer caused reads again.
    if (!read.current) return result;
    if (!result.ok) this.error = result.error;
    else {
      this.error = null;
      this.jobs = result.value.jobs;
      this.fromCache = result.value.fromCache;
      this.syncedAt = result.value.syncedAt;
      this.loaded = true;
      const deletable = new Set(this.jobs.filter(jobFinal).map((j) => j.id)); // eslint-disable-line svelte/prefer-svelte-reactivity -- built and read at once, never state
      this.selected = this.selected.filter((id) => deletable.has(id));
    }
    if (this.#again) {
      this.#again = false;
      void this.load();
    }
    return result;
  }

  /** Read again for an event: folded into the read on its way, if any (a busy poll never piles up reads). */
  refresh(): void {
    if (this.loading) this.#again = true;
    else void this.load();
  }

  get deletable(): readonly TrainingJob[] {
    return this.jobs.filter(jobFinal);
  }

  isSelected(jobId: string): boolean {
    return this.selected.includes(jobId);
  }

  toggle(jobId: string, on = !this.isSelected(jobId)): void {
    const job = this.jobs.find((j) => j.id === jobId);
    if (on && (!job || !jobFinal(job))) return;
    this.selected = on ? [...this.selected.filter((id) => id !== jobId), jobId] : this.selected.filter((id) => id !== jobId);
  }

  /** Tick every finished job, or none. */
  selectAll(on: boolean): void {
    this.selected = on ? this.deletable.map((j) => j.id) : [];
  }

  /** A job as an action answered it: newer than any read already on its way, which is then dropped. */
  put(job: TrainingJob): void {
    if (!this.jobs.some((j) => j.id === job.id)) return;
    this.jobs = this.jobs.map((j) => (j.id === job.id ? job : j));
    this.#latest.supersede();
  }

  drop(jobIds: readonly string[]): void {
    this.jobs = this.jobs.filter((j) => !jobIds.includes(j.id));
    this.selected = this.selected.filter((id) => !jobIds.includes(id));
  }
}

/** One job's page. */
export class TrainingJobView {
  readonly orgId: string;
  readonly jobId: string;
  readonly #bridge: FleetBridge;
  job = $state.raw<TrainingJob | null>(null);
  fromCache = $state(false);
  loading = $state(false);
  error = $state.raw<BridgeError | null>(null);
  readonly #latest = new Latest();

  constructor(bridge: FleetBridge, orgId: string, jobId: string, known: TrainingJob | null = null) {
    this.#bridge = bridge;
    this.orgId = orgId;
    this.jobId = jobId;
    this.job = known;
  }

  async load(): Promise<Result<{ readonly job: TrainingJob; readonly fromCache: boolean }>> {
    const read = this.#latest.read();
    this.loading = true;
    const result = await this.#bridge.invoke('training.get', { jobId: this.jobId });
    if (!read.current) return result;
    this.loading = false;
    if (result.ok) {
      this.job = result.value.job;
      this.fromCache = result.value.fromCache;
      this.error = null;
    } else this.error = result.error;
    return result;
  }

  /** A fresher job (an action's answer, an event). */
  put(job: TrainingJob): void {
    if (job.id !== this.jobId) return;
    this.job = job;
    this.#latest.supersede(); // an older read on its way no longer replaces it
    this.loading = false;
  }
}

// --- the submit form ---

export type TrainingMode = 'builtin' | 'custom';
export type SubmitField = 'datasetId' | 'modelName' | 'modelVersion' | 'modelType' | 'tags' | 'registryItemId' | 'registryItemVersion';

type SubmitRequest =
  | { readonly kind: 'builtin'; readonly request: z.output<(typeof trainingRequests)['training.submit']> }
  | { readonly kind: 'custom'; readonly request: z.output<(typeof trainingRequests)['training.submitCustom']> };

/** A script version that can run: one with an uploaded file. */
export function scriptVersionRuns(version: TrainingScript['versions'][number]): boolean {
  return version.platforms.length > 0 || version.uploadedAt !== null;
}

/**
 * "Train a model": built-in training (dataset, model name and version, model type, labels) or a
 * registry training script (dataset, script and its version, model name and version). Checked with
 * the contract's own schemas, plus the model's taken versions, before anything is sent; what the
 * service still refuses is kept to show in the form (`refusal`).
 */
export class TrainingSubmitForm {
  readonly orgId: string;
  readonly #bridge: FleetBridge;
  mode = $state<TrainingMode>('builtin');

  datasets = $state.raw<readonly TrainingDataset[]>([]);
  datasetsLoading = $state(false);
  datasetsError = $state.raw<BridgeError | null>(null);
  models = $state.raw<readonly TrainingModel[]>([]);
  modelsError = $state.raw<BridgeError | null>(null);
  scripts = $state.raw<readonly TrainingScript[]>([]);
  scriptsLoading = $state(false);
  scriptsLoaded = $state(false);
  scriptsError = $state.raw<BridgeError | null>(null);

  datasetId = $state('');
  modelName = $state('');
  modelVersion = $state('');
  modelType = $state<ModelType>('single_label_classification');
  tags = $state.raw<readonly string[]>([]);
  /** What is typed in the labels field, not yet a chip. */
  tagDraft = $state('');
  /** Why the last label typed was not added. */
  tagError = $state<string | null>(null);
  registryItemId = $state('');
  registryItemVersion = $state('');

  /** Submit was pressed: every problem shows. */
  submitted = $state(false);
  submitting = $state(false);
  /** What the service (or main) refused the last submit with. */
  refusal = $state.raw<BridgeError | null>(null);
  /** The user typed a version or chose a type: names no longer propose theirs. */
  #versionTouched = false;
  #typeTouched = false;

  constructor(bridge: FleetBridge, orgId: string) {
    this.#bridge = bridge;
    this.orgId = orgId;
  }

  /** Datasets and models (and scripts in custom mode). The most recently used dataset is chosen. */
  async load(): Promise<void> {
    await Promise.all([this.loadDatasets(), this.loadModels(), this.mode === 'custom' ? this.loadScripts() : null]);
  }

  async loadDatasets(): Promise<void> {
    this.datasetsLoading = true;
    const result = await this.#bridge.invoke('training.datasets', { orgId: this.orgId });
    this.datasetsLoading = false;
    if (!result.ok) {
      this.datasetsError = result.error;
      return;
    }
    this.datasetsError = null;
    this.datasets = result.value;
    if (!this.datasets.some((d) => d.id === this.datasetId)) this.datasetId = this.datasets[0]?.id ?? '';
  }

  async loadModels(): Promise<void> {
    const result = await this.#bridge.invoke('training.models', { orgId: this.orgId });
    if (!result.ok) {
      this.modelsError = result.error;
      return;
    }
    this.modelsError = null;
    this.models = result.value;
    if (this.modelName.trim() !== '') this.#propose();
  }

  async loadScripts(): Promise<void> {
    this.scriptsLoading = true;
    const result = await this.#bridge.invoke('training.scripts', { orgId: this.orgId });
    this.scriptsLoading = false;
    if (!result.ok) {
      this.scriptsError = result.error;
      return;
    }
    this.scriptsError = null;
    this.scripts = result.value;
    this.scriptsLoaded = true;
    if (!this.scripts.some((s) => s.itemId === this.registryItemId)) {
      const only = this.scripts.length === 1 ? this.scripts[0] : undefined;
      this.setScript(only?.itemId ?? '');
    }
  }

  setMode(mode: TrainingMode): void {
    this.mode = mode;
    this.refusal = null;
    if (mode === 'custom' && !this.scriptsLoaded && !this.scriptsLoading) void this.loadScripts();
  }

  get dataset(): TrainingDataset | null {
    return this.datasets.find((d) => d.id === this.datasetId) ?? null;
  }

  /** The existing model the name names; null for a new model. */
  get model(): TrainingModel | null {
    const name = this.modelName.trim();
    return this.models.find((m) => m.name === name) ?? null;
  }

  get script(): TrainingScript | null {
    return this.scripts.find((s) => s.itemId === this.registryItemId) ?? null;
  }

  setDataset(id: string): void {
    this.datasetId = id;
  }

  /** A name: an existing model proposes its next version and its type; a new one proposes `1`. */
  setModelName(name: string): void {
    this.modelName = name;
    this.#propose();
  }

  #propose(): void {
    const model = this.model;
    if (!this.#versionTouched) this.modelVersion = this.modelName.trim() === '' ? '' : (model?.nextVersion ?? '1');
    if (!this.#typeTouched && model?.modelType) this.modelType = model.modelType;
  }

  setModelVersion(version: string): void {
    this.modelVersion = version;
    this.#versionTouched = version.trim() !== '';
  }

  setModelType(type: ModelType): void {
    this.modelType = type;
    this.#typeTouched = true;
  }

  /** A script: its newest version that can run is chosen. */
  setScript(itemId: string): void {
    this.registryItemId = itemId;
    const runnable = (this.script?.versions ?? []).filter(scriptVersionRuns);
    this.registryItemVersion = runnable.at(-1)?.version ?? '';
  }

  setScriptVersion(version: string): void {
    this.registryItemVersion = version;
  }

  // --- labels ---

  /** Labels from `text` (comma-separated): each checked with the contract's schema, none twice. False if one was refused (`tagError` says why). */
  addTags(text: string): boolean {
    this.tagError = null;
    for (const raw of text.split(',')) {
      if (raw.trim() === '') continue;
      const parsed = trainingTag.safeParse(raw);
      if (!parsed.success) {
        this.tagError = `“${raw.trim()}”: ${sentence(parsed.error.issues[0]?.message ?? 'is not a label').toLowerCase()}`;
        return false;
      }
      const tag = parsed.data;
      if (this.tags.includes(tag)) {
        this.tagError = `“${tag}” is a label already.`;
        return false;
      }
      if (this.tags.length >= MAX_TRAINING_TAGS) {
        this.tagError = `A job trains on at most ${MAX_TRAINING_TAGS} labels.`;
        return false;
      }
      this.tags = [...this.tags, tag];
    }
    return true;
  }

  /** Enter or a comma: what is typed becomes chips; what was refused stays typed. */
  commitDraft(): void {
    const parts = this.tagDraft.split(',');
    const kept: string[] = [];
    let failed = false;
    for (const part of parts) {
      if (failed || !this.addTags(part)) {
        failed = true;
        kept.push(part);
      }
    }
    this.tagDraft = kept.join(',').trim();
    if (!failed) this.tagError = null;
  }

  removeTag(tag: string): void {
    this.tags = this.tags.filter((t) => t !== tag);
    this.tagError = null;
  }

  /** Backspace in an empty field. */
  removeLastTag(): void {
    this.tags = this.tags.slice(0, -1);
    this.tagError = null;
  }

  /** The chosen dataset's labels not taken yet, matching what is typed. */
  get tagSuggestions(): readonly string[] {
    const typed = this.tagDraft.trim().toLowerCase();
    return (this.dataset?.labels ?? []).filter((l) => !this.tags.includes(l) && (typed === '' || l.toLowerCase().includes(typed)));
  }

  /** Labels not annotated in the chosen dataset: the service would fail the job at its start, so the form refuses them. */
  get unknownTags(): readonly string[] {
    const labels = this.dataset?.labels ?? [];
    return labels.length === 0 ? [] : this.tags.filter((t) => !labels.includes(t));
  }

  // --- checks ---

  /** The request as the contract parses it, or every problem by field. */
  get check(): { request: SubmitRequest | null; errors: Partial<Record<SubmitField, string>> } {
    const common = { orgId: this.orgId, datasetId: this.datasetId, modelName: this.modelName, modelVersion: this.modelVersion };
    const builtin = this.mode === 'builtin' ? trainingRequests['training.submit'].safeParse({ ...common, modelType: this.modelType, tags: [...this.tags] }) : null;
    const custom = this.mode === 'custom' ? trainingRequests['training.submitCustom'].safeParse({ ...common, registryItemId: this.registryItemId, registryItemVersion: this.registryItemVersion }) : null;
    const parsedError = builtin?.error ?? custom?.error;
    const errors = (parsedError ? fieldErrors(parsedError) : {}) as Partial<Record<SubmitField, string>>;
    if (this.datasetId.trim() === '') errors.datasetId = this.datasets.length === 0 && !this.datasetsLoading ? 'There is no dataset to train on.' : 'Choose a dataset to train on.';
    if (this.mode === 'custom') {
      if (this.registryItemId.trim() === '') errors.registryItemId = 'Choose a training script.';
      if (this.registryItemVersion.trim() === '') errors.registryItemVersion = this.registryItemId ? 'The script has no uploaded version to run.' : 'Choose a version of the script.';
    }
    if (this.mode === 'builtin' && this.tags.length === 0) errors.tags = 'Add at least one label to train on.';
    const unknown = this.mode === 'builtin' ? this.unknownTags : [];
    if (!errors.tags && unknown.length > 0 && this.dataset) {
      errors.tags = `${this.dataset.name} has no label ${unknown.map((t) => `“${t}”`).join(', ')}: a job fails on labels its dataset lacks. Its labels: ${this.dataset.labels.join(', ')}.`;
    }
    const model = this.model;
    const version = this.modelVersion.trim();
    if (!errors.modelName && !errors.modelVersion && model && model.versions.includes(version)) {
      errors.modelVersion = `Version ${version} of ${model.name} is taken; ${model.nextVersion} is free.`;
    }
    if (Object.keys(errors).length > 0) return { request: null, errors };
    if (builtin?.success) return { request: { kind: 'builtin', request: builtin.data }, errors };
    if (custom?.success) return { request: { kind: 'custom', request: custom.data }, errors };
    return { request: null, errors };
  }

  /** What shows: everything once submitted; before, only what the typed name and version already get wrong. */
  get errors(): Partial<Record<SubmitField, string>> {
    const all = this.check.errors;
    if (this.submitted) return all;
    const live: Partial<Record<SubmitField, string>> = {};
    if (this.modelName.trim() !== '' && all.modelName) live.modelName = all.modelName;
    if (this.modelVersion.trim() !== '' && all.modelVersion) live.modelVersion = all.modelVersion;
    return live;
  }

  /**
   * Check, then send. Null when a check failed (the fields say why). `beforeSend` runs while the
   * user's gesture is still on (nothing awaited yet): where notification permission is asked.
   */
  async submit(beforeSend?: () => void): Promise<Result<TrainingJob> | null> {
    if (this.submitting) return null;
    this.submitted = true;
    this.refusal = null;
    // A label still typed (Enter pressed in another field) counts; one refused stops here, saying why.
    if (this.mode === 'builtin' && this.tagDraft.trim() !== '') {
      this.commitDraft();
      if (this.tagDraft.trim() !== '') return null;
    }
    const { request } = this.check;
    if (!request) return null;
    beforeSend?.();
    this.submitting = true;
    const result = request.kind === 'builtin' ? await this.#bridge.invoke('training.submit', request.request) : await this.#bridge.invoke('training.submitCustom', request.request);
    this.submitting = false;
    if (!result.ok) {
      this.refusal = result.error;
      // A version taken meanwhile: the taken versions are read again so the field says so.
      if (result.error.kind === 'conflict') void this.loadModels();
    }
    return result;
  }
}

// --- the store ---

/** Which training page is open. */
export interface TrainingPage {
  readonly orgId: string;
  /** The open job; null: the list. */
  readonly jobId: string | null;
}

export interface TrainingOptions {
  /** Where ended jobs are told in the app (always). */
  notices?: Notices;
  /** Desktop notifications the page shows (browser mode); null where the host shows them (Electron). */
  notifier?: Notifier | null;
}

/** Training as the app shows it: one per app, like the registry. */
export class TrainingStore {
  readonly #bridge: FleetBridge;
  readonly #notices: Notices | null;
  readonly #notifier: Notifier | null;
  readonly #summary: Synced<TrainingSummary>;
  /** The open organization's page; null: training is closed. */
  list = $state.raw<TrainingList | null>(null);
  /** The open job, over its organization's page. */
  job = $state.raw<TrainingJobView | null>(null);
  /** "Train a model", while open. */
  form = $state.raw<TrainingSubmitForm | null>(null);
  notifyPermission = $state<NotifyPermission>('unsupported');
  #openListeners: (() => void)[] = [];

  constructor(bridge: FleetBridge, options: TrainingOptions = {}) {
    this.#bridge = bridge;
    this.#notices = options.notices ?? null;
    this.#notifier = options.notifier ?? null;
    this.notifyPermission = this.#notifier?.permission() ?? 'unsupported';
    this.#summary = new Synced(
      () => bridge.invoke('training.summary', {}),
      (apply) => bridge.on('training.changed', (changed) => apply(changed.summary)),
    );
  }

  get bridge(): FleetBridge {
    return this.#bridge;
  }

  get page(): TrainingPage | null {
    const list = this.list;
    return list ? { orgId: list.orgId, jobId: this.job?.jobId ?? null } : null;
  }

  get summary(): TrainingSummary | null {
    return this.#summary.value;
  }

  get summaryError(): BridgeError | null {
    return this.#summary.error;
  }

  /** Jobs running now, in all organizations (the badge). */
  get running(): number {
    return this.#summary.value?.running ?? 0;
  }

  runningIn(orgId: string): number {
    return this.#summary.value?.byOrg[orgId]?.running ?? 0;
  }

  /** Whether desktop notifications can be offered (browser mode with the API). */
  get canNotify(): boolean {
    return this.#notifier !== null && this.notifyPermission !== 'unsupported';
  }

  /** Follow the summary, the changes of the open page and job, ended jobs and notification clicks. */
  follow(): () => void {
    const stops = [
      this.#summary.follow(),
      this.#bridge.on('training.changed', (changed) => this.#changed(changed)),
      this.#bridge.on('training.ended', (ended) => this.#ended(ended)),
      this.#bridge.on('training.open', (open) => this.openJob(open.orgId, open.jobId)),
    ];
    return () => {
      for (const stop of stops) stop();
    };
  }

  /** Told whenever a training page opens (by the user, an event, a notification): the app closes what it shows instead. */
  onOpen(listener: () => void): () => void {
    this.#openListeners.push(listener);
    return () => {
      this.#openListeners = this.#openListeners.filter((l) => l !== listener);
    };
  }

  #opened(): void {
    for (const listener of this.#openListeners) listener();
  }

  #changed(changed: TrainingChanged): void {
    const list = this.list;
    if (list && changed.orgIds.includes(list.orgId)) list.refresh();
    const job = this.job;
    if (job && changed.orgIds.includes(job.orgId)) void job.load();
  }

  #ended({ job, notified }: TrainingEnded): void {
    this.#put(job);
    const { title, body } = endedMessage(job);
    this.#notices?.push(job.status === 'succeeded' ? 'success' : job.status === 'failed' ? 'error' : 'info', body ? `${title} — ${body}` : title);
    if (notified || !this.#notifier) return;
    this.notifyPermission = this.#notifier.permission();
    if (this.notifyPermission !== 'granted') return;
    this.#notifier.show({ title, body, tag: `training-${job.id}` }, () => this.openJob(job.orgId, job.id));
  }

  /** Ask for notification permission, once it is still undecided: call from a user gesture only. */
  askNotifyPermission(): void {
    const notifier = this.#notifier;
    if (!notifier || notifier.permission() !== 'default') return;
    void notifier.request().then((permission) => {
      this.notifyPermission = permission;
    });
  }

  /** An organization's training page (its list); the filter stays when it is the same organization. */
  open(orgId: string): TrainingList {
    let list = this.list;
    if (!list || list.orgId !== orgId) {
      list = new TrainingList(this.#bridge, orgId);
      this.list = list;
      void list.load();
    } else void list.load();
    this.job = null;
    this.#opened();
    return list;
  }

  /** A job's page, over its organization's list. */
  openJob(orgId: string, jobId: string): TrainingJobView {
    if (!this.list || this.list.orgId !== orgId) {
      const list = new TrainingList(this.#bridge, orgId);
      this.list = list;
      void list.load();
    }
    const view = new TrainingJobView(this.#bridge, orgId, jobId, this.list?.jobs.find((j) => j.id === jobId) ?? null);
    this.job = view;
    void view.load();
    this.#opened();
    return view;
  }

  /** From a job back to its organization's list. */
  backToList(): void {
    this.job = null;
    this.list?.refresh();
  }

  close(): void {
    this.list = null;
    this.job = null;
    this.form = null;
  }

  /** Another profile is active: close, and read the summary again. */
  reset(): void {
    this.close();
    void this.#summary.load();
  }

  /** After the backend link came back (events may have been missed): read what is shown again. */
  async reload(): Promise<void> {
    const list = this.list;
    list?.refresh();
    const job = this.job;
    await Promise.all([this.#summary.load(), job?.load()]);
  }

  /** Open "Train a model" for the open organization (or `orgId`). */
  startSubmit(orgId = this.list?.orgId): TrainingSubmitForm | null {
    if (!orgId) return null;
    const form = new TrainingSubmitForm(this.#bridge, orgId);
    this.form = form;
    void form.load();
    return form;
  }

  closeSubmit(): void {
    this.form = null;
  }

  /** Submit the form; a job submitted is opened (and this app watches it: permission to notify is asked here). The dialog closes itself (`closeSubmit`). */
  async submit(form: TrainingSubmitForm): Promise<Result<TrainingJob> | null> {
    const result = await form.submit(() => this.askNotifyPermission());
    if (result?.ok) {
      if (this.list?.orgId === form.orgId) this.list.refresh();
      this.openJob(result.value.orgId || form.orgId, result.value.id);
      this.job?.put(result.value);
    }
    return result;
  }

  /** Ask a pending or running job to stop. */
  async cancel(jobId: string): Promise<Result<TrainingJob>> {
    const result = await this.#bridge.invoke('training.cancel', { jobId });
    if (result.ok) this.#put(result.value);
    return result;
  }

  /**
   * Delete finished jobs, each on its own: those deleted leave the list (and their page closes),
   * those refused are kept with why (`list.deleteFailures`). Fails as a whole only if the call did.
   */
  async delete(jobIds: readonly string[]): Promise<Result<{ readonly deleted: readonly string[]; readonly failed: readonly DeleteFailure[] }>> {
    const list = this.list;
    const label = (id: string) => {
      const job = list?.jobs.find((j) => j.id === id) ?? (this.job?.jobId === id ? this.job.job : null);
      return job ? jobLabel(job) : id;
    };
    const result = await this.#bridge.invoke('training.delete', { jobIds: [...jobIds] });
    if (!result.ok) return result;
    const failed = result.value.failed.map((f) => ({ jobId: f.jobId, label: label(f.jobId), message: f.error.message }));
    if (list) {
      list.drop(result.value.deleted);
      list.deleteFailures = failed;
    }
    if (this.job && result.value.deleted.includes(this.job.jobId)) this.job = null;
    return { ok: true, value: { deleted: result.value.deleted, failed } };
  }

  /** Be notified when the job ends, or stop; watching asks for notification permission (a user gesture). */
  async watch(jobId: string, watch: boolean): Promise<Result<TrainingJob>> {
    if (watch) this.askNotifyPermission();
    const result = await this.#bridge.invoke('training.watch', { jobId, watch });
    if (result.ok) this.#put(result.value);
    return result;
  }

  #put(job: TrainingJob): void {
    this.list?.put(job);
    this.job?.put(job);
  }
}
