/** The permission rows of the organization operations (docs/PROTOCOL.md section 10; the machinery: permissions/rules.ts). */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { location, none, org, type Rules } from '../permissions/rules';
import { displayName, freeText, metadataJson, publicNamespace, requiredId } from '../validate';

export const orgRules: Rules<typeof AppServiceService> = {
  createOrganization: { validate: (r) => displayName('name', r.name), resource: none, need: 'authenticated' },
  listOrganizations: { resource: none, need: 'authenticated' },
  getOrganization: { resource: (r) => org(r.orgId), need: 'sees' },
  updateOrganization: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      if (r.name !== undefined) displayName('name', r.name);
      if (r.publicNamespace !== undefined) publicNamespace('public_namespace', r.publicNamespace);
      if (r.region !== undefined) freeText('region', r.region);
      if (r.cid !== undefined) freeText('cid', r.cid);
      r.defaultFragments?.fragments.forEach((f, i) => requiredId(`default_fragments.fragments[${i}].fragment_id`, f.fragmentId));
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  deleteOrganization: { resource: (r) => org(r.orgId), need: 'owner' },
  getOrganizationNamespaceAvailability: { validate: (r) => publicNamespace('public_namespace', r.publicNamespace), resource: none, need: 'authenticated' },
  getOrganizationsWithAccessToLocation: { resource: (r) => location(r.locationId), need: 'owner' },
  listOrganizationsByUser: { validate: (r) => requiredId('user_id', r.userId), resource: none, need: 'authenticated' },
  getOrganizationMetadata: { resource: (r) => org(r.orgId), need: 'operator' },
  updateOrganizationMetadata: { validate: (r) => (requiredId('org_id', r.orgId), metadataJson('metadata', r.metadata)), resource: (r) => org(r.orgId), need: 'owner' },
};
