import { z } from 'zod';
import { id, empty } from './schemas';
import type { IsoTime } from './schemas';

/** An organization's default fragment: every new machine of the organization starts with it. */
export interface FragmentImport {
  readonly fragmentId: string;
  /** A revision or tag; null means the fragment's latest revision. */
  readonly version: string | null;
}

export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly createdOn: IsoTime | null;
  /** Empty until set; lowercase alphanumeric and dash; set at most once. */
  readonly publicNamespace: string;
  readonly region: string;
  /** CRM identifier. */
  readonly cid: string;
  readonly defaultFragments: readonly FragmentImport[];
}

/** The organizations of the active profile, as cached, and when the cache last matched the service. */
export interface OrgsSnapshot {
  readonly orgs: readonly Organization[];
  readonly syncedAt: IsoTime | null;
}

export const orgsRequests = {
  /** The cached organizations of the active profile. Answers offline too. */
  'orgs.list': empty,
  /** Fetch the organizations from the service into the cache, then answer as `orgs.list`. */
  'orgs.refresh': empty,
  /** One organization: from the service when online, else from the cache. */
  'orgs.get': z.object({ orgId: id }).strict(),
  /** Create an organization; the active profile's key becomes its owner. Needs the service. */
  'orgs.create': z.object({ name: z.string().trim().min(1, 'must not be empty').max(200, 'is too long') }).strict(),
};

export interface OrgsResponses {
  'orgs.list': OrgsSnapshot;
  'orgs.refresh': OrgsSnapshot;
  'orgs.get': Organization;
  'orgs.create': Organization;
}
