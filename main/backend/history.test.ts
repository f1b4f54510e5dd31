import { describe, expect, it } from 'vitest';
import { decodeCursor, editorFromWire, encodeCursor } from './history';

describe('history page tokens', () => {
  it('round-trip the service token and the cached position', () => {
    expect(decodeCursor(encodeCursor({ service: 'abc==', at: 100 }), 0)).toEqual({ service: 'abc==', at: 100 });
    expect(decodeCursor(encodeCursor({ at: 7 }), 0)).toEqual({ at: 7 });
  });

  it('start at `first` without a token', () => {
    expect(decodeCursor(undefined, 0)).toEqual({ at: 0 });
    expect(decodeCursor('', Number.MAX_SAFE_INTEGER)).toEqual({ at: Number.MAX_SAFE_INTEGER });
  });

  it.each(['not-base64-json', Buffer.from('{"a": -1}').toString('base64url'), Buffer.from('{"a": 1.5}').toString('base64url'), Buffer.from('{"s": 3, "a": 1}').toString('base64url'), Buffer.from('[]').toString('base64url')])(
    'refuse %s as invalid, never internal',
    (token) => {
      expect(() => decodeCursor(token, 0)).toThrow(expect.objectContaining({ kind: 'invalid', message: expect.stringMatching(/not a page token this app gave out/) }));
    },
  );
});

describe('editors', () => {
  it('tell keys from users', () => {
    expect(editorFromWire({ identityType: '', identityId: 'k1', displayName: 'ci key' })).toEqual({ kind: 'key', id: 'k1', displayName: 'ci key' });
    expect(editorFromWire({ identityType: 'user', identityId: 'u1', displayName: 'a@b.c' })).toEqual({ kind: 'user', id: 'u1', displayName: 'a@b.c' });
    expect(editorFromWire(undefined)).toBeNull();
  });
});
