import { z } from 'zod';
import { fragmentVersion } from './config';
import { displayName, empty, id, metadataObject, publicNamespace, type IsoTime, type MetadataView } from './schemas';

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

/** What may be learnt of an organization one holds no authorization in (GetOrganizationsWithAccessToLocation). */
export interface OrganizationIdentity {
  readonly id: string;
  readonly name: string;
}

/** An organization a user belongs to, as ListOrganizationsByUser answers. */
export interface OrgDetails {
  readonly orgId: string;
  readonly orgName: string;
  readonly orgCid: string;
  readonly publicNamespace: string;
}

export const orgsRequests = {
  /** The cached organizations of the active profile. Answers offline too. */
  'orgs.list': empty,
  /** Fetch the organizations from the service into the cache, then answer as `orgs.list`. */
  'orgs.refresh': empty,
  /** One organization: from the service when online, else from the cache. */
  'orgs.get': z.object({ orgId: id }).strict(),
  /** Create an organization; the active profile's key becomes its owner. Needs the service. */
  'orgs.create': z.object({ name: displayName }).strict(),
  /**
   * Change an organization: only the fields given change (UpdateOrganization), the default
   * fragments too. The public namespace can be set once. Needs the service; the cached organization
   * is updated from its answer.
   */
  'orgs.update': z
    .object({
      orgId: id,
      name: displayName.optional(),
      publicNamespace: publicNamespace.optional(),
      region: z.string().trim().max(200, 'is too long').optional(),
      cid: z.string().trim().max(200, 'is too long').optional(),
      /**
       * Replaces the default fragments (empty clears them): machines created in the organization
       * afterwards start with them in their main part's config. Each must be public or the
       * organization's own; `version` is a revision or a tag (absent: the latest).
       */
      defaultFragments: z
        .array(z.object({ fragmentId: id, version: fragmentVersion.optional() }).strict())
        .max(100, 'names more than 100 fragments')
        .refine((list) => new Set(list.map((f) => f.fragmentId)).size === list.length, 'names a fragment twice')
        .optional(),
    })
    .strict(),
  /** Delete an organization with everything in it (its locations, machines, parts, metadata). Needs the service. */
  'orgs.delete': z.object({ orgId: id }).strict(),
  /** Whether a public namespace is free (GetOrganizationNamespaceAvailability). Needs the service. */
  'orgs.namespaceAvailable': z.object({ publicNamespace }).strict(),
  /** The owner and every organization a location is shared with (GetOrganizationsWithAccessToLocation). */
  'orgs.withAccessToLocation': z.object({ locationId: id }).strict(),
  /** The organizations a user belongs to, as far as this key may see (ListOrganizationsByUser). */
  'orgs.byUser': z.object({ userId: id }).strict(),
  /** The organization's user-defined metadata: from the service when online, else the cached copy. */
  'orgs.metadata': z.object({ orgId: id }).strict(),
  /** Replace the organization's metadata as a whole. Needs the service. */
  'orgs.setMetadata': z.object({ orgId: id, metadata: metadataObject }).strict(),
};

export interface OrgsResponses {
  'orgs.list': OrgsSnapshot;
  'orgs.refresh': OrgsSnapshot;
  'orgs.get': Organization;
  'orgs.create': Organization;
  'orgs.update': Organization;
  'orgs.delete': OrgsSnapshot;
  'orgs.namespaceAvailable': { readonly available: boolean };
  'orgs.withAccessToLocation': readonly OrganizationIdentity[];
  'orgs.byUser': readonly OrgDetails[];
  'orgs.metadata': MetadataView;
  'orgs.setMetadata': MetadataView;
}
