import { decodeJwt, SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOKEN_ISSUER, TokenService } from './tokens.js';

const secret = new Uint8Array(32).fill(7);

afterEach(() => {
  vi.useRealTimers();
});

describe('TokenService', () => {
  it('issues a token that lives its whole lifetime even when issued late in a second', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-25T10:00:00.999Z'));
    const tokens = new TokenService(secret, 1);
    const token = await tokens.issue('key-1', 1);
    const { exp, iat } = decodeJwt(token);
    expect((exp ?? 0) - (iat ?? 0)).toBe(1);
    vi.setSystemTime(new Date('2026-11-25T10:00:01.900Z'));
    await expect(tokens.verify(token)).resolves.toEqual({ keyId: 'key-1', version: 1 });
    vi.setSystemTime(new Date('2026-11-25T10:00:02.000Z'));
    await expect(tokens.verify(token)).rejects.toThrow(/expired/i);
  });
});

describe('the secret version a token carries', () => {
  it('comes back from verify; a token without one (an earlier build) stands for the first secret; a bad one is refused', async () => {
    const tokens = new TokenService(secret, 60);
    await expect(tokens.verify(await tokens.issue('key-1', 3))).resolves.toEqual({ keyId: 'key-1', version: 3 });
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject('key-1').setIssuer(TOKEN_ISSUER).setIssuedAt().setExpirationTime('1m').setJti('j').sign(secret);
    await expect(tokens.verify(await sign({}))).resolves.toEqual({ keyId: 'key-1', version: 1 });
    for (const ver of [0, -1, 1.5, '2', null]) await expect(tokens.verify(await sign({ ver }))).rejects.toThrow(/invalid "ver" claim/);
  });
});
