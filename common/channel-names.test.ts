import { describe, expect, it } from 'vitest';
import { channelNames, isChannelName } from './channel-names';
import { requestSchemas } from './channels';

describe('channel names', () => {
  it('are the keys of requestSchemas, each once and in the same order', () => {
    expect(channelNames).toEqual(Object.keys(requestSchemas));
  });

  it('are what isChannelName accepts, and nothing else', () => {
    for (const name of channelNames) expect(isChannelName(name)).toBe(true);
    for (const other of ['', 'orgs', 'orgs.', 'Orgs.list', 'orgs.list ', 'constructor', 'toString', '__proto__', 'hasOwnProperty', 1, null, undefined, {}, ['orgs.list']]) {
      expect(isChannelName(other)).toBe(false);
    }
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(channelNames)).toBe(true);
  });
});
