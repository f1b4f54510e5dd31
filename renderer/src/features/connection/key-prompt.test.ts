import { describe, expect, it } from 'vitest';
import { localProfile, remoteProfile } from '../../lib/testing/fixtures';
import { KeyPrompt } from './key-prompt';

describe('asking for a new key', () => {
  it('asks once per refusal, however often the state is told, and again after the profile was online', () => {
    const prompt = new KeyPrompt();
    expect(prompt.next('online', remoteProfile)).toBeNull();
    expect(prompt.next('needs-key', remoteProfile)).toBe(remoteProfile);
    expect(prompt.next('needs-key', remoteProfile)).toBeNull();
    expect(prompt.next('connecting', remoteProfile)).toBeNull();
    expect(prompt.next('needs-key', remoteProfile)).toBeNull();
    expect(prompt.next('online', remoteProfile)).toBeNull();
    expect(prompt.next('needs-key', remoteProfile)).toBe(remoteProfile);
  });

  it('never asks for the local profile, whose key is the local service’s', () => {
    expect(new KeyPrompt().next('needs-key', localProfile)).toBeNull();
  });
});
