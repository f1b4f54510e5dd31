import type { ConnectionState } from '../../../../common/connection';
import type { ProfileView } from '../../../../common/profiles';

/**
 * When to ask for a new API key on its own: once per refusal of the profile's key (connection state
 * `needs-key`), not on each of main's retries nor each time the state is told again; once the
 * profile is online, a later refusal asks anew. The banner's "Enter API key" asks whenever the user wants.
 */
export class KeyPrompt {
  #asked: string | null = null;

  /** The profile to ask a key for now, given the connection's status and the active profile; null when not to ask. */
  next(status: ConnectionState['status'], profile: ProfileView | null): ProfileView | null {
    if (status === 'online') this.#asked = null;
    if (status !== 'needs-key' || profile?.kind !== 'remote' || this.#asked === profile.id) return null;
    this.#asked = profile.id;
    return profile;
  }
}
