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
import type { FleetBridge } from '../../../../common/bridge';
import type { BridgeError, Result } from '../../../../common/result';
import type { TrainingChanged, TrainingEnded, TrainingJob, TrainingSummary } from '../../../../common/training';
import { couldNotLoad } from '../../lib/router/lazy-page.svelte';
import type { Notices } from '../../lib/state/notices.svelte';
import { Synced } from '../../lib/state/synced.svelte';
import { type DeleteFailure, TrainingJobView, TrainingList } from './jobs.svelte';
import { endedMessage, jobLabel } from './labels';
import type { Notifier, NotifyPermission } from './notifier';
import { trainingPath } from './routes';
import type { TrainingSubmitForm } from './submit-form.svelte';

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
  /** Shows a training page through the app's router (an address, Back and Forward); without it, at once. */
  navigate?: (path: string, options?: { readonly replace?: boolean; readonly ifShowing?: readonly string[] }) => void;
}

/** Training as the app shows it: one per app, like the registry. */
export class TrainingStore {
  readonly #bridge: FleetBridge;
  readonly #notices: Notices | null;
  readonly #notifier: Notifier | null;
  readonly #navigate: ((path: string, options?: { readonly replace?: boolean; readonly ifShowing?: readonly string[] }) => void) | null;
  readonly #summary: Synced<TrainingSummary>;
  /** The open organization's page; null: training is closed. */
  list = $state.raw<TrainingList | null>(null);
  /** The open job, over its organization's page. */
  job = $state.raw<TrainingJobView | null>(null);
  /** "Train a model", while open. */
  form = $state.raw<TrainingSubmitForm | null>(null);
  notifyPermission = $state<NotifyPermission>('unsupported');
  /**
   * The last organization's list, kept after its page closed: opening it again shows the jobs held
   * at once and reads only what changed since (a list of thousands is read whole once per profile).
   */
  #kept: TrainingList | null = null;
  /** Counts the opens and closes of "Train a model", so an open whose code is still loading knows it was overtaken. */
  #opening = 0;

  constructor(bridge: FleetBridge, options: TrainingOptions = {}) {
    this.#bridge = bridge;
    this.#notices = options.notices ?? null;
    this.#notifier = options.notifier ?? null;
    this.#navigate = options.navigate ?? null;
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

  /** Go to an organization's training page, or a job's (by the user, an event, a notification): through the router when there is one. */
  open(orgId: string): void {
    if (this.#navigate) this.#navigate(trainingPath(orgId));
    else this.show(orgId);
  }
  openJob(orgId: string, jobId: string): void {
    if (this.#navigate) this.#navigate(trainingPath(orgId, jobId));
    else this.showJob(orgId, jobId);
  }

  /** Show an organization's training page (its list); the filter stays when it is the same organization. */
  show(orgId: string): TrainingList {
    let list = this.list;
    if (!list || list.orgId !== orgId) {
      list = this.#kept?.orgId === orgId ? this.#kept : new TrainingList(this.#bridge, orgId);
      this.list = list;
    }
    void list.load();
    this.job = null;
    return list;
  }

  /** Show a job's page, over its organization's list. */
  showJob(orgId: string, jobId: string): TrainingJobView {
    if (!this.list || this.list.orgId !== orgId) {
      const list = this.#kept?.orgId === orgId ? this.#kept : new TrainingList(this.#bridge, orgId);
      this.list = list;
      void list.load();
    }
    const view = new TrainingJobView(this.#bridge, orgId, jobId, this.list?.jobs.find((j) => j.id === jobId) ?? null);
    this.job = view;
    void view.load();
    return view;
  }

  /** From a job back to its organization's list. */
  backToList(): void {
    const orgId = this.job?.orgId ?? this.list?.orgId;
    if (this.#navigate && orgId) {
      this.#navigate(trainingPath(orgId));
      return;
    }
    this.job = null;
    this.list?.refresh();
  }

  close(): void {
    this.#kept = this.list ?? this.#kept;
    this.list = null;
    this.job = null;
    this.closeSubmit();
  }

  /** Another profile is active: close, and read the summary again. */
  reset(): void {
    this.close();
    this.#kept = null;
    void this.#summary.load();
  }

  /** After the backend link came back (events may have been missed): read what is shown again. */
  async reload(): Promise<void> {
    const list = this.list;
    list?.refresh();
    const job = this.job;
    await Promise.all([this.#summary.load(), job?.load()]);
  }

  /**
   * Open "Train a model" for the open organization (or `orgId`). The form's code, with the checks it
   * shares with main (zod), loads on first use: the store itself is on the window's boot path.
   */
  async startSubmit(orgId = this.list?.orgId): Promise<TrainingSubmitForm | null> {
    if (!orgId) return null;
    const opening = ++this.#opening;
    let Form: typeof TrainingSubmitForm;
    try {
      ({ TrainingSubmitForm: Form } = await import('./submit-form.svelte'));
    } catch (e) {
      if (opening === this.#opening) this.#notices?.push('error', couldNotLoad('Train a model', e instanceof Error ? e.message : String(e)));
      return null;
    }
    // Closed (the dialog, the page, the profile), or opened again, while the code loaded: that later call decides.
    if (opening !== this.#opening) return null;
    const form = new Form(this.#bridge, orgId);
    this.form = form;
    void form.load();
    return form;
  }

  /** Close "Train a model", and any open of it whose code is still loading. */
  closeSubmit(): void {
    this.#opening++;
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
    const open = this.job;
    if (open && result.value.deleted.includes(open.jobId)) {
      // The job's page is gone: its list in its place, and Back must not lead to it.
      if (this.#navigate) this.#navigate(trainingPath(open.orgId), { replace: true, ifShowing: [trainingPath(open.orgId, open.jobId)] });
      else this.job = null;
    }
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
