/** The permission rows of the location operations (docs/PROTOCOL.md section 10; the machinery: permissions/rules.ts). */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { location, org, type Rules } from '../permissions/rules';
import { displayName, freeText, metadataJson, optionalId, requiredId } from '../validate';

export const locationRules: Rules<typeof AppServiceService> = {
  createLocation: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      displayName('name', r.name);
      optionalId('parent_location_id', r.parentLocationId);
    },
    // Owner on the organization, or on the parent (which covers it through its ancestors).
    resource: (r) => (r.parentLocationId === '' ? org(r.orgId) : location(r.parentLocationId, 'parent_location_id')),
    need: 'owner',
  },
  getLocation: { resource: (r) => location(r.locationId), need: 'operator' },
  updateLocation: {
    validate: (r) => {
      requiredId('location_id', r.locationId);
      // Empty means "leave the name as it is" (spec).
      if (r.name !== undefined && r.name.trim() !== '') displayName('name', r.name);
      if (r.parentLocationId !== undefined) optionalId('parent_location_id', r.parentLocationId);
      if (r.region !== undefined) freeText('region', r.region);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
  },
  deleteLocation: { resource: (r) => location(r.locationId), need: 'owner', owningOrganizationOnly: true },
  listLocations: { resource: (r) => org(r.orgId), need: 'sees' },
  shareLocation: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      requiredId('location_id', r.locationId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
    owningOrganizationOnly: true,
  },
  unshareLocation: {
    validate: (r) => {
      requiredId('organization_id', r.organizationId);
      requiredId('location_id', r.locationId);
    },
    resource: (r) => location(r.locationId),
    need: 'owner',
    owningOrganizationOnly: true,
  },
  getLocationMetadata: { resource: (r) => location(r.locationId), need: 'operator' },
  updateLocationMetadata: { validate: (r) => (requiredId('location_id', r.locationId), metadataJson('metadata', r.metadata)), resource: (r) => location(r.locationId), need: 'owner' },
};
