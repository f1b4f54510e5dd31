import type { Organization as WireOrganization } from '../../proto/gen/fleet/app/v1/orgs';
import type { Organization } from '../../common/orgs';

/** The bridge's view of a wire organization (timestamps as ISO strings, absent values made explicit). */
export function orgFromWire(org: WireOrganization): Organization {
  return {
    id: org.id,
    name: org.name,
    createdOn: org.createdOn ? org.createdOn.toISOString() : null,
    publicNamespace: org.publicNamespace,
    region: org.region,
    cid: org.cid,
    defaultFragments: org.defaultFragments.map((f) => ({ fragmentId: f.fragmentId, version: f.version ?? null })),
  };
}
