import { describe, expect, it } from 'vitest';
import type { AppServiceService } from '../../proto/gen/fleet/app/v1/app';
import { mergeRules, none, org, type Rules } from './rules';

describe('mergeRules', () => {
  const listing: Rules<typeof AppServiceService> = { listOrganizations: { resource: none, need: 'authenticated' } };
  const reading: Rules<typeof AppServiceService> = { getOrganization: { resource: (r) => org(r.orgId), need: 'sees' } };

  it("keeps every domain's rows", () => {
    expect(Object.keys(mergeRules(listing, reading)).sort()).toEqual(['getOrganization', 'listOrganizations']);
  });

  it('refuses an operation with rows in two domains', () => {
    expect(() => mergeRules(listing, reading, { listOrganizations: { resource: none, need: 'sees' } })).toThrow(/"listOrganizations" has a row in two domains/);
  });
});
