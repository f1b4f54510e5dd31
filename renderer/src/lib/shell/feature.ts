import type { FleetBridge } from '../../../../common/bridge';
import type { Clock } from '../state/clock.svelte';
import type { FleetActions } from '../fleet/fleet-actions';
import type { FleetStore, NodeRef } from '../fleet/fleet.svelte';
import type { IconName } from '../ui/icons';
import type { KeyPermissionsStore } from '../permissions/permissions.svelte';
import type { Notices } from '../state/notices.svelte';
import type { PageRoute, Router } from '../router/router.svelte';

/**
 * What every feature may use: the bridge, the router, notices, the clock, the fleet tree, and the
 * app's state that decides whether writes can be made. Built once by the composition root.
 */
export interface Shell {
  readonly bridge: FleetBridge;
  readonly router: Router;
  readonly notices: Notices;
  readonly clock: Clock;
  readonly fleet: FleetStore;
  readonly fleetActions: FleetActions;
  /** Browser mode (a loopback WebSocket and server), not Electron: dropped files are staged by fetch, notifications are the page's. */
  readonly browserMode: boolean;
  /** The service cannot be reached now. */
  readonly offline: boolean;
  /** The active profile's id as the window last heard it (null before the profiles are in). */
  readonly profileId: string | null;
  /** Why writes cannot be made now (said on every disabled action), or null. */
  readonly blocked: string | null;
  /**
   * What the active profile's key may do: `permissions.blocked(permission, ref)` is why a write
   * cannot be made now (offline, or the key lacks the role: "needs owner on …"), said on the
   * disabled action like `blocked`; null when it can.
   */
  readonly permissions: KeyPermissionsStore;
  /** What the features contribute to each other's pages (links on an organization's page, a node's page). */
  readonly contributions: Contributions;
}

/** A place to go, offered on another feature's page (an organization's "Training", a part's "Logs"). */
export interface PageLink {
  readonly id: string;
  readonly label: string;
  readonly icon: IconName;
  readonly route: string;
  readonly title?: string;
  /** A primary action of the page it is on. */
  readonly primary?: boolean;
  readonly testId?: string;
}

/** An entry of Go to… (Ctrl/Cmd+K) besides the fleet's nodes. */
export interface PaletteCommand {
  readonly id: string;
  readonly name: string;
  readonly context: string;
  readonly icon: IconName;
  readonly run: () => void;
}

/** A button of the sidebar's header (the registry, training, log search). */
export interface NavItem {
  readonly id: string;
  readonly label: string;
  readonly title: string;
  readonly icon: IconName;
  /** Its page is the one shown. */
  readonly pressed: boolean;
  /** A count shown on the button (jobs running). */
  readonly badge?: number;
  readonly testId?: string;
  readonly run: () => void;
}

/** What the features offer each other, merged (read reactively). */
export interface Contributions {
  orgLinks(orgId: string): readonly PageLink[];
  nodeLinks(ref: NodeRef): readonly PageLink[];
  commands(): readonly PaletteCommand[];
  nav(): readonly NavItem[];
}

/**
 * A domain of the UI. Every member is optional: a feature registers its pages and says what it
 * adds to the shared places; the composition root (renderer/src/features.ts) lists the features and
 * nothing else knows them.
 */
export interface Feature {
  /** Its name, the same word as its folder (routes say which feature owns them). */
  readonly id: string;
  /** Its pages. */
  readonly routes?: readonly PageRoute[];
  /** Another feature's page is shown now: close what this one shows (and stop its live reads). */
  leave?(): void;
  /**
   * Asked before the user leaves this feature's page (another page, Back, another profile): a
   * message to confirm when leaving would lose something (unsaved changes), else null.
   */
  leaveGuard?(): string | null;
  /** Start following main's events; returns the function that stops. */
  follow?(): () => void;
  /**
   * Reactive effects (`$effect`) that live as long as the app's window: called once while the root
   * component is set up, where Svelte lets effects be made. Only what must follow state goes here.
   */
  effects?(): void;
  /** Another profile is active: forget what belonged to the last one. */
  reset?(): void;
  /** The link to the backend came back: events may have been missed, read what is shown again. */
  reload?(): void;
  /** Keyboard shortcuts (tinykeys syntax) that work everywhere, text fields included. */
  keys?(): Readonly<Record<string, (event: KeyboardEvent) => void>>;
  orgLinks?(orgId: string): readonly PageLink[];
  nodeLinks?(ref: NodeRef): readonly PageLink[];
  commands?(): readonly PaletteCommand[];
  nav?(): readonly NavItem[];
}

/** Makes a feature over the shell (and what the composition root hands it). */
export type FeatureFactory = (shell: Shell) => Feature;
