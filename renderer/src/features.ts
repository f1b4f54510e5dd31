/**
 * The renderer's features, in the order their contributions appear (sidebar buttons, links on a
 * page, Go to… entries). A new domain adds its folder under features/ and one line here.
 */
import { accessFeature } from './features/access/feature';
import { configFeature } from './features/config/feature';
import { fragmentsFeature } from './features/fragments/feature';
import { fleetFeature } from './features/fleet/feature.svelte';
import type { LivenessWatch } from './features/fleet/liveness-watch';
import { logsFeature } from './features/logs/feature';
import { orgsFeature } from './features/orgs/feature';
import type { OrgsStore } from './features/orgs/orgs.svelte';
import { registryFeature } from './features/registry/feature';
import { trainingFeature } from './features/training/feature.svelte';
import type { Feature, Shell } from './lib/shell/feature';

export function createFeatures(shell: Shell, orgs: OrgsStore): { features: Feature[]; watch: LivenessWatch } {
  const fleet = fleetFeature(shell, () => orgs.loaded);
  return {
    features: [fleet, orgsFeature(shell, orgs), registryFeature(shell), trainingFeature(shell), logsFeature(shell), configFeature(shell), fragmentsFeature(shell), accessFeature(shell)],
    watch: fleet.watch,
  };
}
