import { describe, expect, it } from 'vitest';
import { MAX_ROUTE_LENGTH } from '../../common/routes';
import { DEEP_LINK_SCHEME, deepLinkInArgv, describeLink, isDeepLink, routeOfDeepLink } from './deep-link-url';

describe('routeOfDeepLink', () => {
  it('reads the canonical form fleet-desk://<route without its leading slash>', () => {
    expect(DEEP_LINK_SCHEME).toBe('fleet-desk');
    expect(routeOfDeepLink('fleet-desk://orgs/ORG/training')).toBe('/orgs/ORG/training');
    expect(routeOfDeepLink('fleet-desk://orgs/ORG/parts/PART/logs')).toBe('/orgs/ORG/parts/PART/logs');
    expect(routeOfDeepLink('fleet-desk://registry/items/acme:nav-stack')).toBe('/registry/items/acme:nav-stack');
  });

  it('reads the triple-slash form (an empty host) as the same route', () => {
    expect(routeOfDeepLink('fleet-desk:///orgs/ORG/training')).toBe('/orgs/ORG/training');
    expect(routeOfDeepLink('fleet-desk:///')).toBe('/');
  });

  it('keeps the query string, and percent escapes as they are', () => {
    expect(routeOfDeepLink('fleet-desk://orgs/ORG/training?job=j1&tab=logs')).toBe('/orgs/ORG/training?job=j1&tab=logs');
    expect(routeOfDeepLink('fleet-desk:///orgs/My%20Org/training?q=a%2Fb')).toBe('/orgs/My%20Org/training?q=a%2Fb');
  });

  it('opens / for fleet-desk:// with nothing after it', () => {
    expect(routeOfDeepLink('fleet-desk://')).toBe('/');
    expect(routeOfDeepLink('fleet-desk://?x=1')).toBe('/?x=1');
  });

  it('keeps the route exactly as spelled: no host, user or port is read out of it, no .. resolved', () => {
    expect(routeOfDeepLink('fleet-desk://Orgs/ORG')).toBe('/Orgs/ORG');
    expect(routeOfDeepLink('fleet-desk://a@b/x')).toBe('/a@b/x');
    expect(routeOfDeepLink('fleet-desk://orgs:1/x')).toBe('/orgs:1/x');
    expect(routeOfDeepLink('fleet-desk://orgs/a/../b')).toBe('/orgs/a/../b');
  });

  it('takes the scheme in any case', () => {
    expect(routeOfDeepLink('FLEET-DESK://orgs/ORG')).toBe('/orgs/ORG');
    expect(routeOfDeepLink('Fleet-Desk:///orgs/ORG')).toBe('/orgs/ORG');
  });

  it.each([
    ['another scheme', 'https://orgs/ORG/training'],
    ["the page's own scheme", 'app://fleet-desk/index.html'],
    ['a scheme that only starts the same', 'fleet-desktop://orgs/ORG'],
    ['a scheme with no colon', 'fleet-desk//orgs/ORG'],
    ['no // after the colon', 'fleet-desk:orgs/ORG'],
    ['one / after the colon', 'fleet-desk:/orgs/ORG'],
    ['four slashes (a protocol-relative route)', 'fleet-desk:////evil.example/x'],
    ['a fragment', 'fleet-desk://orgs/ORG#training'],
    ['a space', 'fleet-desk://orgs/My Org'],
    ['a backslash', 'fleet-desk://orgs\\ORG'],
    ['a newline', 'fleet-desk://orgs/ORG\n/x'],
    ['a NUL', 'fleet-desk://orgs/\u0000'],
    ['a quote', 'fleet-desk://orgs/"x'],
    ['non-ASCII', 'fleet-desk://orgs/Zürich'],
    ['a route one character too long', `fleet-desk://${'a'.repeat(MAX_ROUTE_LENGTH)}`],
    ['an empty string', ''],
  ])('refuses %s', (_why, url) => expect(routeOfDeepLink(url)).toBeNull());

  it('accepts a route of exactly the longest length', () => {
    const link = `fleet-desk://${'a'.repeat(MAX_ROUTE_LENGTH - 1)}`;
    expect(routeOfDeepLink(link)).toHaveLength(MAX_ROUTE_LENGTH);
  });
});

describe('deepLinkInArgv', () => {
  it('finds the link among Electron and Chromium switches, wherever it is', () => {
    expect(deepLinkInArgv(['C:\\Program Files\\Fleet Desk\\Fleet Desk.exe', 'fleet-desk://orgs/ORG/training'])).toBe('fleet-desk://orgs/ORG/training');
    // A development run on Windows: electron.exe <app folder> <link>, with switches Chromium added.
    expect(deepLinkInArgv(['electron.exe', 'C:\\src\\fleet-desk', '--allow-file-access-from-files', 'fleet-desk:///orgs/O', '--original-process-start-time=1'])).toBe(
      'fleet-desk:///orgs/O',
    );
    expect(deepLinkInArgv(['/opt/Fleet Desk/fleet-desk', 'FLEET-DESK://orgs/O'])).toBe('FLEET-DESK://orgs/O');
  });

  it('returns a link even when it is invalid, so the refusal is logged where it is handled', () => {
    expect(deepLinkInArgv(['fleet-desk', 'fleet-desk:nope'])).toBe('fleet-desk:nope');
  });

  it('finds nothing on a plain start, nor in the executable path or a switch that mentions the scheme', () => {
    expect(deepLinkInArgv(['/opt/Fleet Desk/fleet-desk'])).toBeUndefined();
    expect(deepLinkInArgv([])).toBeUndefined();
    expect(deepLinkInArgv(['fleet-desk://orgs/O'])).toBeUndefined(); // argv[0] is the executable
    expect(deepLinkInArgv(['fleet-desk', '--open=fleet-desk://orgs/O', '/tmp/fleet-desk:x'])).toBeUndefined();
  });

  it('isDeepLink compares only the scheme', () => {
    expect(isDeepLink('fleet-desk:')).toBe(true);
    expect(isDeepLink('Fleet-Desk:anything')).toBe(true);
    expect(isDeepLink('fleet-desk')).toBe(false);
    expect(isDeepLink(' fleet-desk://x')).toBe(false);
  });
});

describe('describeLink', () => {
  it('quotes the link, so a line break in it cannot start a forged log line', () => {
    expect(describeLink('fleet-desk://a\nfleet-desk: opened /admin')).toBe('"fleet-desk://a\\nfleet-desk: opened /admin"');
  });

  it('cuts a long link short and says how long it was', () => {
    const long = `fleet-desk://${'x'.repeat(10_000)}`;
    const shown = describeLink(long);
    expect(shown.length).toBeLessThan(260);
    expect(shown).toContain(`(${long.length} characters)`);
  });
});
