/**
 * Long-lived main services hold state that belongs to one profile: open log tails, an upload queue,
 * the machines on screen. Each used to watch `connection.changed` and compare profile ids on its own;
 * the connection now tells them, once per change of the active profile, before it announces the new
 * state — so a service never acts on the old profile's state after the renderer hears of the new one.
 */
export interface ProfileScoped {
  /** The active profile is now `profileId` (another than before): let go of the previous one's state. */
  switchTo(profileId: string | null): void;
}

/** The services scoped to the active profile, and the profile they were last told of. */
export class ProfileScopes {
  readonly #scoped = new Set<ProfileScoped>();
  #profileId: string | null = null;

  /**
   * Tell `scoped` of every change of profile; returns the function that stops telling it. One added
   * while a profile is active is told of that one at once, as if it had been there at the switch.
   */
  add(scoped: ProfileScoped): () => void {
    this.#scoped.add(scoped);
    if (this.#profileId !== null) scoped.switchTo(this.#profileId);
    return () => this.#scoped.delete(scoped);
  }

  /** The active profile is `profileId`: tell every service, unless that is the one they know. */
  announce(profileId: string | null): void {
    if (profileId === this.#profileId) return;
    this.#profileId = profileId;
    // A copy: a service that stops listening while it switches must not skip the next one.
    for (const scoped of [...this.#scoped]) scoped.switchTo(profileId);
  }
}
