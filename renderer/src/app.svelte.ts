import type { FleetBridge } from '../../common/bridge';
import type { WebSocketTransport } from './lib/bridge/ws-transport';
import { BackendLink } from './features/connection/backend-link.svelte';
import { Clock } from './lib/state/clock.svelte';
import { ConnectionStore } from './features/connection/connection.svelte';
import { FleetActions } from './lib/fleet/fleet-actions';
import { FleetStore } from './lib/fleet/fleet.svelte';
import { LocalServiceStore } from './features/local-service/local-service.svelte';
import { LogsStore } from './features/logs/logs.svelte';
import { Notices } from './lib/state/notices.svelte';
import { OrgsStore } from './features/orgs/orgs.svelte';
import { ProfilesStore } from './features/profiles/profiles.svelte';

/** Everything the shell shows, built over one bridge. */
export class FleetApp {
  readonly profiles: ProfilesStore;
  readonly connection: ConnectionStore;
  readonly orgs: OrgsStore;
  readonly localService: LocalServiceStore;
  readonly notices = new Notices();
  readonly clock = new Clock();
  readonly link: BackendLink;
  readonly fleet: FleetStore;
  readonly fleetActions: FleetActions;
  readonly logs: LogsStore;
  readonly bridge: FleetBridge;

  constructor(bridge: FleetBridge, transport: WebSocketTransport | null = null) {
    this.bridge = bridge;
    this.profiles = new ProfilesStore(bridge);
    this.connection = new ConnectionStore(bridge);
    this.orgs = new OrgsStore(bridge);
    this.fleet = new FleetStore(bridge, () => this.orgs.orgs);
    this.fleetActions = new FleetActions(bridge, this.fleet, this.notices);
    this.localService = new LocalServiceStore(bridge);
    this.link = new BackendLink(transport);
    this.logs = new LogsStore(bridge);
  }

  /** Load everything and follow main's events; returns the function that stops. */
  follow(): () => void {
    const stops = [
      this.profiles.follow(),
      this.connection.follow(),
      this.orgs.follow(),
      this.fleet.follow(),
      this.localService.follow(),
      this.logs.follow(),
      this.clock.follow(),
      this.link.follow(() => void this.reload()),
    ];
    return () => {
      for (const stop of stops) stop();
      this.notices.clear();
    };
  }

  /** Load every snapshot again (after the backend link came back: events may have been missed). */
  async reload(): Promise<void> {
    await Promise.all([this.profiles.load(), this.connection.load(), this.orgs.load(), this.localService.load()]);
    for (const org of this.orgs.orgs) void this.fleet.loadTree(org.id);
  }
}
