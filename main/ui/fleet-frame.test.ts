import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLEET_FRAME_ROWS, uiRequests, type FleetFrame } from '../../common/ui';
import { escapeHtml, FLEET_FRAME_MARK, fleetFrameHtml, pageWithFleetFrame } from './fleet-frame';

const page = `<!doctype html><div class="boot-sidebar">${FLEET_FRAME_MARK}</div>`;
const profile = { profileId: 'local', orgIds: new Set(['o1', 'o2']) };
const frame: FleetFrame = {
  profileId: 'local',
  rows: [
    { level: 1, kind: 'org', orgId: 'o1', label: 'Acme', expandable: true, expanded: true, count: 34 },
    { level: 2, kind: 'location', label: 'Dock <7> & "yard"', expandable: true, expanded: false, count: 3, shared: true },
    { level: 3, kind: 'machine', label: 'amr-001', expandable: true, expanded: true, selected: true },
    { level: 4, kind: 'part', label: 'amr-001-main', expandable: false, expanded: false, main: true },
  ],
};

describe('fleetFrameHtml', () => {
  it('draws each row in order with its level, icon, toggle, count, badges and a hollow liveness dot', () => {
    const html = fleetFrameHtml(frame);
    const rows = html.split('<div class="boot-row"').slice(1);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toContain('data-kind="org" data-name="Acme" data-count="34"');
    expect(rows[0]).toContain('<div class="boot-row-in"><span class="boot-toggle open">');
    expect(rows[0]).toContain('<span class="boot-toggle open">');
    expect(rows[0]).toContain('#boot-icon-building');
    expect(rows[0]).toContain('<span class="boot-count">34</span>');
    expect(rows[0]).not.toContain('boot-dot');
    expect(rows[1]).toContain('<span class="boot-badge">shared</span>');
    expect(rows[1]).toContain('#boot-icon-mapPin');
    expect(rows[1]).toMatch(/<span class="boot-toggle"><svg/);
    // Indented as the tree is, one spacer per level below the top (the CSP allows no inline style).
    expect(rows[2]).toContain(`<div class="boot-row-in selected">${'<span class="boot-indent"></span>'.repeat(2)}<span class="boot-toggle open">`);
    expect(rows[3]).toContain(`<div class="boot-row-in">${'<span class="boot-indent"></span>'.repeat(3)}<span class="boot-toggle"></span>`);
    expect(rows[2]).toContain('#boot-icon-robot');
    expect(rows[2]).toContain('<span class="boot-dot"></span>');
    expect(rows[3]).toContain('#boot-icon-cpu');
    expect(rows[3]).toContain('<span class="boot-badge">main</span>');
    expect(rows[3]).toContain('<span class="boot-toggle"></span>');
    // The frame is a picture: assistive tech is pointed at the app's tree, not at it.
    expect(html.startsWith('<div class="boot-fleet" aria-hidden="true">')).toBe(true);
  });

  it('writes names as text, in the row and in its attribute', () => {
    const html = fleetFrameHtml(frame);
    expect(html).toContain('data-name="Dock &lt;7&gt; &amp; &quot;yard&quot;"');
    expect(html).toContain('<span class="boot-label">Dock &lt;7&gt; &amp; &quot;yard&quot;</span>');
    const hostile = fleetFrameHtml({ profileId: 'local', rows: [{ level: 1, kind: 'org', label: `"><img src=x onerror=alert(1)><script>x()</script>'`, expandable: false, expanded: false }] });
    expect(hostile).not.toMatch(/<img|<script/);
  });

  it('escapes every string so that no markup character of it is left, and unescaping gives it back', () => {
    const unescape = (s: string) => s.replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e]!);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        expect(unescape(escaped)).toBe(text);
      }),
    );
  });
});

describe('pageWithFleetFrame', () => {
  it('draws the stored rows in place of the mark', () => {
    const out = pageWithFleetFrame(page, frame, profile);
    expect(out).not.toContain(FLEET_FRAME_MARK);
    expect(out).toContain('<div class="boot-sidebar"><div class="boot-fleet"');
    expect(out.match(/class="boot-row"/g)).toHaveLength(4);
  });

  it('serves the plain page for nothing stored, no rows, a value of another shape, or a page without the mark', () => {
    expect(pageWithFleetFrame(page, null, profile)).toBe(page);
    expect(pageWithFleetFrame(page, { profileId: 'local', rows: [] }, profile)).toBe(page);
    // Written by another version: another field, too many rows, a level out of range, a kind unknown.
    expect(pageWithFleetFrame(page, { ...frame, at: 1 }, profile)).toBe(page);
    expect(pageWithFleetFrame(page, { ...frame, rows: Array.from({ length: FLEET_FRAME_ROWS + 1 }, () => frame.rows[0]) }, profile)).toBe(page);
    expect(pageWithFleetFrame(page, { ...frame, rows: [{ ...frame.rows[0], level: 0 }] }, profile)).toBe(page);
    expect(pageWithFleetFrame(page, { ...frame, rows: [{ ...frame.rows[0], kind: 'robot' }] }, profile)).toBe(page);
    expect(pageWithFleetFrame(page, 'rows', profile)).toBe(page);
    expect(pageWithFleetFrame('<!doctype html><div class="boot-sidebar"></div>', frame, profile)).toBe('<!doctype html><div class="boot-sidebar"></div>');
  });

  it('serves the plain page for rows of another profile, or of an organization the profile’s cache does not hold', () => {
    expect(pageWithFleetFrame(page, { ...frame, profileId: 'work' }, profile)).toBe(page);
    expect(pageWithFleetFrame(page, frame, { profileId: 'local', orgIds: new Set(['o2']) })).toBe(page);
    const { orgId: _, ...noId } = frame.rows[0]!;
    expect(pageWithFleetFrame(page, { ...frame, rows: [noId] }, profile)).toBe(page);
  });

  it('takes a name with replacement patterns ($&, $1) as text', () => {
    const out = pageWithFleetFrame(page, { profileId: 'local', rows: [{ level: 1, kind: 'org', orgId: 'o1', label: "$& $' $1", expandable: false, expanded: false }] }, profile);
    expect(out).toContain(`<span class="boot-label">$&amp; $&#39; $1</span>`);
  });

  it('fits the built index.html: its sidebar has the mark, and its sprite every icon the rows use', () => {
    const index = readFileSync(join(import.meta.dirname, '..', '..', 'renderer', 'index.html'), 'utf8');
    expect(index).toContain(`<div class="boot-sidebar">${FLEET_FRAME_MARK}</div>`);
    const used = new Set([...fleetFrameHtml(frame).matchAll(/href="#([\w-]+)"/g)].map((m) => m[1]));
    expect(used.size).toBe(6);
    for (const id of used) expect(index).toContain(`<symbol id="${id}"`);
  });
});

describe('ui.set of fleet.frame', () => {
  const set = uiRequests['ui.set'];
  it('takes a frame of the shape main draws', () => {
    expect(set.safeParse({ key: 'fleet.frame', value: frame }).success).toBe(true);
  });

  it('refuses another shape, saying where', () => {
    const wrong = set.safeParse({ key: 'fleet.frame', value: { ...frame, rows: [{ ...frame.rows[0], level: 99 }] } });
    expect(wrong.success).toBe(false);
    expect(wrong.error?.issues[0]?.path).toEqual(['value', 'rows', 0, 'level']);
    expect(set.safeParse({ key: 'fleet.frame', value: { ...frame, rows: Array.from({ length: FLEET_FRAME_ROWS + 1 }, () => frame.rows[0]) } }).success).toBe(false);
    expect(set.safeParse({ key: 'fleet.frame', value: { rows: frame.rows } }).success).toBe(false);
    // Other keys keep taking any JSON.
    expect(set.safeParse({ key: 'app.route', value: { rows: 1 } }).success).toBe(true);
  });
});
