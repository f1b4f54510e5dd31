/**
 * The permission rows of the fragment operations (docs/PROTOCOL.md section 10; the machinery:
 * permissions/rules.ts). Fragments are their organization's: reading needs a role on the owning
 * organization itself (read_fragment; a public fragment is read by any signed-in caller), writing
 * needs owner there (write_fragment). A location or machine role counts for neither.
 */
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { fragment, org, robot, type Rules } from '../permissions/rules';
import { displayName, requiredId } from '../validate';
import { additionalIds, fragmentConfig, historyPageLimit, knownVisibility, newVisibility, revisionNumber, tagName, updatedVisibility, versionName } from './validate';

export const fragmentRules: Rules<typeof AppServiceService> = {
  // read_fragment.
  listFragments: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      r.visibilities.forEach((v, i) => knownVisibility(`visibilities[${i}]`, v));
    },
    resource: (r) => org(r.orgId),
    need: 'operator',
  },
  // read_robot_config: what a machine's configs use (the additional fragments are checked against the caller by the handler).
  listMachineFragments: {
    validate: (r) => {
      requiredId('machine_id', r.machineId);
      additionalIds(r.additionalFragmentIds);
    },
    resource: (r) => robot(r.machineId, 'machine_id'),
    need: 'operator',
  },
  // read_fragment: public fragments are seen by every signed-in caller, private ones need a role on the owning organization.
  getFragment: { validate: (r) => (requiredId('fragment_id', r.fragmentId), versionName(r.version)), resource: (r) => fragment(r.fragmentId), need: 'sees' },
  // write_fragment.
  createFragment: {
    validate: (r) => {
      requiredId('org_id', r.orgId);
      displayName('name', r.name);
      fragmentConfig('config', r.config);
      newVisibility(r.visibility);
    },
    resource: (r) => org(r.orgId),
    need: 'owner',
  },
  updateFragment: {
    validate: (r) => {
      requiredId('fragment_id', r.fragmentId);
      displayName('name', r.name);
      if (r.config !== undefined) fragmentConfig('config', r.config);
      updatedVisibility(r);
    },
    resource: (r) => fragment(r.fragmentId),
    need: 'owner',
  },
  deleteFragment: { resource: (r) => fragment(r.fragmentId), need: 'owner' },
  // read_fragment, and its history is the organization's: operator on the owning organization, public or not.
  getFragmentHistory: { validate: (r) => (requiredId('id', r.id), historyPageLimit(r.pageLimit)), resource: (r) => fragment(r.id, 'id'), need: 'operator' },
  setFragmentTag: {
    validate: (r) => {
      requiredId('fragment_id', r.fragmentId);
      tagName(r.tag);
      revisionNumber(r.revision);
    },
    resource: (r) => fragment(r.fragmentId),
    need: 'owner',
  },
  deleteFragmentTag: { validate: (r) => (requiredId('fragment_id', r.fragmentId), tagName(r.tag)), resource: (r) => fragment(r.fragmentId), need: 'owner' },
};
