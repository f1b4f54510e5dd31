import type { NodeRef } from '../fleet/fleet.svelte';
import type { Router } from '../router/router.svelte';
import type { Contributions, Feature, NavItem, PageLink, PaletteCommand } from './feature';

/**
 * The features, put together: their pages registered with the router, their contributions merged
 * (in the order the composition root lists them), their lifecycles run side by side.
 */
export class Workbench implements Contributions {
  readonly #router: Router;
  #features: Feature[] = [];

  constructor(router: Router) {
    this.#router = router;
  }

  get features(): readonly Feature[] {
    return this.#features;
  }

  add(features: readonly Feature[]): void {
    for (const feature of features) {
      if (this.#features.some((f) => f.id === feature.id)) throw new Error(`Workbench: two features are named ${feature.id}`);
      for (const route of feature.routes ?? []) if (route.owner !== feature.id) throw new Error(`Workbench: ${feature.id} registers ${route.pattern} for ${route.owner}`);
      this.#router.register(feature.routes ?? []);
      this.#features.push(feature);
    }
  }

  /** The router left `owner`'s pages. */
  leave(owner: string): void {
    this.#features.find((f) => f.id === owner)?.leave?.();
  }

  follow(): () => void {
    const stops = this.#features.map((f) => f.follow?.() ?? (() => undefined));
    return () => {
      for (const stop of stops.reverse()) stop();
    };
  }

  /** What leaving `owner`'s page would lose, to confirm (see Feature.leaveGuard), or null. */
  leaveGuard(owner: string | undefined): string | null {
    return this.#features.find((f) => f.id === owner)?.leaveGuard?.() ?? null;
  }

  /** Call from the root component's setup (see Feature.effects). */
  effects(): void {
    for (const f of this.#features) f.effects?.();
  }

  reset(): void {
    for (const f of this.#features) f.reset?.();
  }

  reload(): void {
    for (const f of this.#features) f.reload?.();
  }

  keys(): Record<string, (event: KeyboardEvent) => void> {
    const keys: Record<string, (event: KeyboardEvent) => void> = {};
    for (const f of this.#features)
      for (const [combo, run] of Object.entries(f.keys?.() ?? {})) {
        if (combo in keys) throw new Error(`Workbench: ${combo} is bound twice (${f.id})`);
        keys[combo] = run;
      }
    return keys;
  }

  orgLinks(orgId: string): readonly PageLink[] {
    return this.#features.flatMap((f) => f.orgLinks?.(orgId) ?? []);
  }

  nodeLinks(ref: NodeRef): readonly PageLink[] {
    return this.#features.flatMap((f) => f.nodeLinks?.(ref) ?? []);
  }

  commands(): readonly PaletteCommand[] {
    return this.#features.flatMap((f) => f.commands?.() ?? []);
  }

  nav(): readonly NavItem[] {
    return this.#features.flatMap((f) => f.nav?.() ?? []);
  }
}
