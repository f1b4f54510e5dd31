import type { AccessResourceType, GrantView, Role } from '../../../../common/access';
import type { BridgeError, Result } from '../../../../common/result';

const TYPE_WORD: Readonly<Record<AccessResourceType, string>> = { organization: 'organization', location: 'location', machine: 'machine' };

/** A role as a sentence's end: "owner of Reno Fulfillment Center (location)". */
export function grantText(grant: Pick<GrantView, 'role' | 'resourceType' | 'resourceId' | 'resourceName'>): string {
  return `${grant.role} of ${grant.resourceName ?? grant.resourceId} (${TYPE_WORD[grant.resourceType]})`;
}

/** What a role allows, for the pickers' hints. */
export const ROLE_MEANING: Readonly<Record<Role, string>> = {
  operator: 'sees it and operates its machines (configs, logs, control), changes nothing',
  owner: 'may also change it: rename, delete, configs, secrets, and give roles',
};

/** What to do after a refusal, by its kind: the message says why, this says what next. */
const NEXT: Readonly<Record<BridgeError['kind'], string>> = {
  'permission-denied': 'Ask an owner of the organization to do it, or to give this profile’s key the role it needs.',
  unauthenticated: 'The service refused this profile’s key: enter its new key (the banner at the top), then try again.',
  offline: 'This needs the service: try again once it answers.',
  'not-found': 'It may have been removed meanwhile: the list was read again.',
  conflict: 'The list was read again: check it, then try again.',
  invalid: 'Correct it and try again.',
  internal: 'Try again; if it keeps failing, the app’s log says more.',
};

/** A refusal said in words: the service's reason, then what to do. */
export function explain(error: BridgeError): BridgeError {
  const next = NEXT[error.kind];
  return { kind: error.kind, message: error.message.includes(next) ? error.message : `${error.message.replace(/\s*$/, '')} ${next}` };
}

/** The same result, its refusal explained (`explain`). */
export function explained<T>(result: Result<T>): Result<T> {
  return result.ok ? result : { ok: false, error: explain(result.error) };
}
