/** The organizations' cache jobs (cache.ts). */
import type { Organization } from '../../common/orgs';
import type { IsoTime } from '../../common/schemas';
import type { CacheDb } from '../cache/cache';
import { replaceOrgs, upsertOrg } from './cache';

export const orgsJobs = {
  replaceOrgs: (db: CacheDb, orgs: readonly Organization[], at: IsoTime): void => replaceOrgs(db, orgs, at),
  upsertOrg: (db: CacheDb, org: Organization): void => upsertOrg(db, org),
};
