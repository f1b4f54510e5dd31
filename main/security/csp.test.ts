import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, devContentSecurityPolicy, META_CONTENT_SECURITY_POLICY } from './csp';

const strict =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function directives(policy: string): Map<string, string> {
  return new Map(policy.split('; ').map((d) => [d.slice(0, d.indexOf(' ')), d.slice(d.indexOf(' ') + 1)]));
}

describe('content security policy', () => {
  it('is the strict policy', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(strict);
  });

  it('has a meta-tag form without the directives a meta tag cannot deliver', () => {
    expect(META_CONTENT_SECURITY_POLICY).toBe(strict.replace("; frame-ancestors 'none'", ''));
  });

  it('is the policy the renderer page carries in its meta tag (file:// pages get no header)', () => {
    const html = readFileSync(join(import.meta.dirname, '..', '..', 'renderer', 'index.html'), 'utf8');
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
    expect(meta?.[1], 'renderer/index.html has no CSP meta tag').toBe(META_CONTENT_SECURITY_POLICY);
  });

  it('in dev adds only inline styles and the dev server HMR socket', () => {
    const dev = directives(devContentSecurityPolicy('http://localhost:5173'));
    const prod = directives(CONTENT_SECURITY_POLICY);
    expect(dev.get('style-src')).toBe("'self' 'unsafe-inline'");
    expect(dev.get('connect-src')).toBe("'self' ws://localhost:5173");
    for (const [name, value] of prod) {
      if (name !== 'style-src' && name !== 'connect-src') expect(dev.get(name), name).toBe(value);
    }
    expect([...dev.keys()]).toEqual([...prod.keys()]);
    expect(directives(devContentSecurityPolicy('https://dev.local:8443')).get('connect-src')).toBe("'self' wss://dev.local:8443");
  });
});
