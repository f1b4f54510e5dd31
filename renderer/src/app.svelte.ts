import { tick } from 'svelte';
import type { FleetBridge } from '../../common/bridge';
import type { WebSocketTransport } from './lib/bridge/ws-transport';
import { BackendLink } from './features/connection/backend-link.svelte';
import { Clock } from './lib/state/clock.svelte';
import { ConnectionStore } from './features/connection/connection.svelte';
import { createFeatures } from './features';
import { FleetActions } from './lib/fleet/fleet-actions';
import { FleetStore, type NodeRef } from './lib/fleet/fleet.svelte';
import { nodeRoute } from './lib/fleet/routes';
import { nodeKey, parseKey } from './lib/fleet/fleet-index';
import { FLEET_FRAME_ROWS } from '../../common/fleet-frame';
import { browserHistory, memoryHistory, type HistoryHost } from './lib/router/history';
import { LocalServiceStore } from './features/local-service/local-service.svelte';
import type { LivenessWatch } from './features/fleet/liveness-watch';
import { Notices } from './lib/state/notices.svelte';
import { OrgsStore } from './features/orgs/orgs.svelte';
import { KeyPermissionsStore } from './lib/permissions/permissions.svelte';
import { ProfilesStore } from './features/profiles/profiles.svelte';
import { Router } from './lib/router/router.svelte';
import type { Shell } from './lib/shell/feature';
import { Workbench } from './lib/shell/workbench';
import { afterPaint } from './lib/ui/after-paint';

/** How long the announcement of the first view waits for a tree that does not come (main's own grace is shorter). */
const RESTORE_WAIT_MS = 5_000;

/**
 * Everything the app shows, built over one bridge: the chrome's stores (profiles, connection, the
 * local service, the backend link), the fleet tree every feature shares, the router and the
 * features (renderer/src/features.ts). This is the renderer's composition root with App.svelte.
 */
export class FleetApp implements Shell {
  readonly profiles: ProfilesStore;
  readonly connection: ConnectionStore;
  readonly orgs: OrgsStore;
  readonly localService: LocalServiceStore;
  readonly notices = new Notices();
  readonly clock = new Clock();
  readonly link: BackendLink;
  readonly fleet: FleetStore;
  readonly fleetActions: FleetActions;
  readonly permissions: KeyPermissionsStore;
  readonly bridge: FleetBridge;
  readonly router: Router;
  readonly workbench: Workbench;
  readonly browserMode: boolean;
  /** Which machines' liveness main keeps fresh (the tree's rows on screen tell it). */
  readonly watch: LivenessWatch;

  /** Resolved once the first view is drawn (see #restored): work that can wait for it does. */
  #firstViewDrawn: () => void = () => undefined;
  readonly #drawn = new Promise<void>((resolve) => (this.#firstViewDrawn = resolve));

  /** Asks the user to confirm a loss (unsaved changes); the window's own dialog by default. */
  confirm: (message: string) => boolean = (message) => (typeof window === 'undefined' ? true : window.confirm(message));

  constructor(bridge: FleetBridge, transport: WebSocketTransport | null = null, history: HistoryHost = typeof window === 'undefined' ? memoryHistory() : browserHistory(window)) {
    this.bridge = bridge;
    this.browserMode = transport !== null;
    this.profiles = new ProfilesStore(bridge);
    this.connection = new ConnectionStore(bridge);
    this.orgs = new OrgsStore(bridge);
    this.fleet = new FleetStore(bridge, () => this.orgs.orgs);
    this.fleetActions = new FleetActions(bridge, this.fleet, this.notices);
    this.permissions = new KeyPermissionsStore(bridge, this.fleet, () => this.blocked, this.#drawn);
    this.localService = new LocalServiceStore(bridge);
    this.link = new BackendLink(transport);
    this.router = new Router(history, {
      save: (path) => void bridge.invoke('ui.set', { key: 'app.route', value: path }),
      notFound: (path) => this.notices.push('info', `The app has no page at ${path.length > 80 ? `${path.slice(0, 80)}…` : path}; showing the start page instead.`),
      leave: (owner) => this.workbench.leave(owner),
      mayLeave: () => {
        const message = this.workbench.leaveGuard(this.router.match?.route.owner);
        return message === null || this.confirm(message);
      },
      failed: (path, e) => this.notices.push('error', `Couldn't open ${path}: ${e instanceof Error ? e.message : String(e)}`),
    });
    this.workbench = new Workbench(this.router);
    this.fleet.navigate = (ref, options = {}) => {
      const path = ref ? nodeRoute(ref) : '/';
      const owner = this.router.match?.route.owner;
      if (options.onlyOverFleet && owner !== 'fleet' && owner !== 'orgs') return;
      if (options.insteadOf) {
        // The deleted node's page, or one under it (its logs), if the user is still there.
        const gone = nodeRoute(options.insteadOf);
        if (this.router.path === gone || this.router.path.startsWith(`${gone}/`)) this.router.replace(path);
      } else if (options.replace) this.router.replace(path);
      else this.router.go(path);
    };
    const { features, watch } = createFeatures(this, this.orgs);
    this.watch = watch;
    this.workbench.add(features);
  }

  /** A node picked in the tree or the palette: its page; when it is the page shown, its row brought into view again. */
  openNode(ref: NodeRef): void {
    const path = nodeRoute(ref);
    if (path === this.router.path) this.fleet.show(ref);
    else this.router.go(path);
  }

  get contributions(): Workbench {
    return this.workbench;
  }

  #treeShownNow: () => void = () => undefined;
  /**
   * Resolves once the app's fleet tree is in the DOM — in the expansion of the last run, the rows
   * of every organization that starts within what the window's frame showed (a cold start's head
   * will do, unless a machine of it is open) — or could not be: the window's frame with the tree of
   * the last run then gives the window over (src/main.ts).
   */
  readonly treeShown = new Promise<void>((resolve) => (this.#treeShownNow = resolve));

  get profileId(): string | null {
    return this.profiles.active?.id ?? null;
  }

  /** The service cannot be used now: unreachable, or it refused this profile's key (then the cache answers, as offline). */
  get offline(): boolean {
    return this.connection.status === 'offline' || this.connection.status === 'needs-key';
  }

  /** Why writes cannot be made now, said on every disabled action. */
  get blocked(): string | null {
    const { connection } = this;
    if (connection.status === 'needs-key') return 'The service refused this profile’s API key (deleted or rotated elsewhere); changes need a new one. Enter it from the banner; the cached fleet stays browsable.';
    return connection.status === 'offline'
      ? `The service cannot be reached${connection.error ? ` (${connection.error.message.replace(/\.$/, '')})` : ''}; changes need it. The cached fleet stays browsable.`
      : null;
  }

  /** Load everything, show the page of the address (or of the last run) and follow main's events; returns the function that stops. */
  follow(): () => void {
    const stops = [
      this.profiles.follow(),
      this.connection.follow(),
      this.orgs.follow(),
      this.localService.follow(),
      this.workbench.follow(),
      this.permissions.follow(),
      this.clock.follow(),
      this.link.follow(() => void this.reload()),
      this.#followProfile(),
      // A deep link (fleet-desk://…) opened: main names its route. Followed before the start's
      // restore, so a link that launched the app wins over the page of the last run.
      this.bridge.on('app.navigate', ({ route }) => this.router.go(route)),
    ];
    void this.#restored(this.router.start(() => this.#lastPage()));
    void this.#showTree();
    return () => {
      this.router.stop();
      for (const stop of stops.reverse()) stop();
      this.notices.clear();
    };
  }

  /**
   * Tell main once the first view is drawn from the cache — the page of the last run entered, every
   * organization's tree loaded, a frame painted — so that it starts the service and its first sync
   * only then, not beside this page's boot (main goes on after a grace period without it).
   */
  async #restored(routed: Promise<void>): Promise<void> {
    try {
      // A page that failed to open says so itself; the view is as drawn as it will be.
      await Promise.all([routed.catch(() => undefined), this.orgs.settled]);
      await Promise.all(this.orgs.orgs.map((org) => this.fleet.whenTree(org.id, { timeoutMs: RESTORE_WAIT_MS, orgsKnown: true })));
      await afterPaint();
    } finally {
      this.#firstViewDrawn();
    }
    await this.bridge.invoke('ui.restored', {});
  }

  async #showTree(): Promise<void> {
    try {
      await Promise.all([this.fleet.restore(), this.orgs.settled]);
      // A head draws an open machine without its parts: such an organization's whole tree, so the rows do not move after.
      const openMachines = [...this.fleet.expanded].map(parseKey).flatMap((ref) => (ref?.kind === 'machine' ? [ref.orgId] : []));
      const wait = { timeoutMs: RESTORE_WAIT_MS, orgsKnown: true };
      const rowOf = (orgId: string) => this.fleet.rows.indexOfKey(nodeKey({ kind: 'org', orgId, id: orgId }));
      // In the order the tree draws them, down to what the frame showed: an organization whose row
      // is below it (after 10,000 machines of one above) is not waited for.
      for (const org of [...this.orgs.orgs].sort((a, b) => rowOf(a.id) - rowOf(b.id))) {
        if (rowOf(org.id) >= FLEET_FRAME_ROWS) break;
        await (openMachines.includes(org.id) ? this.fleet.whenTree(org.id, wait) : this.fleet.whenDrawn(org.id, wait));
      }
      // The rows in the DOM, not yet painted: the frame goes in this same task, so the next paint
      // shows the app's tree where the frame's was (waiting for a paint under the frame cost 100 ms).
      await tick();
    } finally {
      this.#treeShownNow();
    }
  }

  /** The page this profile showed last (remembered by main per profile), else its selected node's, else none. */
  async #lastPage(): Promise<string | null> {
    await this.fleet.restore();
    const saved = await this.bridge.invoke('ui.get', { key: 'app.route' });
    if (saved.ok && typeof saved.value.value === 'string' && saved.value.value.startsWith('/')) return saved.value.value;
    const selected = this.fleet.selected;
    return selected ? nodeRoute(selected) : null;
  }

  /** Another profile: each feature forgets the last one's pages, and that profile's last page comes back. */
  #followProfile(): () => void {
    return this.profiles.onSwitch(() => {
      this.permissions.reset();
      this.workbench.reset();
      void this.router.restore(() => this.#lastPage(), { newStretch: true });
    });
  }

  /** Load every snapshot again (after the backend link came back: events may have been missed). */
  async reload(): Promise<void> {
    this.workbench.reload();
    this.permissions.reset();
    await Promise.all([this.profiles.load(), this.connection.load(), this.orgs.load(), this.localService.load()]);
    for (const org of this.orgs.orgs) void this.fleet.loadTree(org.id);
  }
}
