/**
 * "Train a model": the submit form's fields, the datasets, models and registry training scripts it
 * offers, and its checks against the contract's schemas before anything is sent.
 */
import type { z } from 'zod';
import type { FleetBridge } from '../../../../common/bridge';
import type { BridgeError, Result } from '../../../../common/result';
import { MAX_TRAINING_TAGS, type ModelType, type TrainingDataset, type TrainingJob, type TrainingModel, trainingRequests, type TrainingScript, trainingTag } from '../../../../common/training';
import { sentence } from '../../lib/format';
import { fieldErrors } from '../../lib/validation';

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
