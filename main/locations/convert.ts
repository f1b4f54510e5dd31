import type { Location as WireLocation } from '../../proto/gen/fleet/app/v1/locations';
import type { Location } from '../../common/locations';

/** The bridge's view of a wire location: its owner and the organizations it is shared with, apart. */
export function locationFromWire(l: WireLocation): Location {
  return {
    id: l.id,
    name: l.name,
    parentLocationId: l.parentLocationId,
    region: l.region,
    ownerOrgId: l.organizations.find((o) => o.primary)?.organizationId ?? '',
    sharedWithOrgIds: l.organizations.filter((o) => !o.primary).map((o) => o.organizationId),
    createdOn: l.createdOn ? l.createdOn.toISOString() : null,
    robotCount: l.robotCount,
  };
}
