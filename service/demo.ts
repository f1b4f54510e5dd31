import type { Organization } from '../proto/gen/fleet/app/v1/orgs';
import type { Identity } from './auth/guard';
import type { NewOrganizationExtras, OrgStore } from './orgs/store';

/** The organizations of the demo fleet, first one first: plausible robot-fleet operators. */
export const DEMO_ORGANIZATIONS: readonly (NewOrganizationExtras & { readonly name: string })[] = [
  { name: 'Acme Warehouse Robotics', publicNamespace: 'acme-warehouse', region: 'us-east', cid: 'CRM-10412' },
  { name: 'Harborline Logistics AMR', region: 'eu-west', cid: 'CRM-10577' },
  { name: 'Northfield Agri-Bots', publicNamespace: 'northfield-agri', region: 'us-central' },
  { name: 'Polaris Inspection Drones', region: 'ap-southeast' },
];

/**
 * Fill a new data dir with the demo fleet, all owned by `owner`, in the order of
 * {@link DEMO_ORGANIZATIONS}. Locations, robots and the rest join as the service learns them.
 */
export function seedDemoFleet(orgs: OrgStore, owner: Identity): Organization[] {
  return DEMO_ORGANIZATIONS.map(({ name, ...extras }) => orgs.create(name, owner, extras));
}
