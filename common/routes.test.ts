import { describe, expect, it } from 'vitest';
import { isRoutePath, MAX_ROUTE_LENGTH } from './routes';

describe('isRoutePath', () => {
  it.each([
    '/',
    '/orgs/ORG/training',
    '/orgs/org-1/parts/part_2/logs',
    '/registry/items/acme:nav-stack',
    '/orgs/ORG/training?job=j1&tab=logs',
    '/orgs/My%20Org/training',
    "/a-b.c_d~e/f:g@h!i$j'k(l)m*n+o,p;q=r",
    '/orgs/ORG/',
    `/${'a'.repeat(MAX_ROUTE_LENGTH - 1)}`,
  ])('accepts %s', (route) => expect(isRoutePath(route)).toBe(true));

  it.each([
    ['an empty string', ''],
    ['no leading slash', 'orgs/ORG'],
    ['a full URL', 'https://evil.example/'],
    ['a protocol-relative URL', '//evil.example/x'],
    ['three slashes', '///x'],
    ['a fragment', '/orgs/ORG#training'],
    ['a space', '/orgs/My Org'],
    ['a backslash', '/orgs\\ORG'],
    ['a backslash first', '/\\evil.example'],
    ['a newline', '/orgs/ORG\n/fake'],
    ['a NUL', '/orgs/\u0000'],
    ['a tab', '/orgs/\tORG'],
    ['a DEL', '/orgs/\u007f'],
    ['a double quote', '/orgs/"x"'],
    ['angle brackets', '/orgs/<script>'],
    ['a non-ASCII letter', '/orgs/Zürich'],
    ['a right-to-left override', '/orgs/\u202e'],
    ['one character too long', `/${'a'.repeat(MAX_ROUTE_LENGTH)}`],
  ])('refuses %s', (_why, route) => expect(isRoutePath(route)).toBe(false));

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 1, {}, ['/'], new String('/')]) expect(isRoutePath(value), String(value)).toBe(false);
  });
});
