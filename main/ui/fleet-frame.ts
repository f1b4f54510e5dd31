/**
 * The window's frame with the fleet tree's top rows drawn in: what main serves as index.html
 * (browser mode's server, Electron's app: scheme). The window then shows the tree as it was left,
 * from the HTML and the stylesheet alone, while the app's code loads and starts; the app takes the
 * window over once its own tree is drawn (renderer/src/main.ts, lib/shell/boot-frame.ts).
 *
 * The rows are data the window stored (`fleet.frame`, common/fleet-frame.ts), checked here again
 * and drawn as text: nothing the window sent is ever written into the page as markup. Their look is
 * the renderer's: classes from styles/global.css (`.boot-*`) and icons from index.html's own sprite.
 */
import { FLEET_FRAME_LEVELS, fleetFrameSchema, type FleetFrame, type FleetFrameKind, type FleetFrameRow } from '../../common/ui';

/** Where index.html's sidebar takes the rows; a page without it is served unchanged. */
export const FLEET_FRAME_MARK = '<!--fleet-frame-->';

const ESCAPES: ReadonlyMap<string, string> = new Map([['&', '&amp;'], ['<', '&lt;'], ['>', '&gt;'], ['"', '&quot;'], ["'", '&#39;']]);
/** Text and attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES.get(c) ?? c);
}

const ICON: Readonly<Record<FleetFrameKind, string>> = { org: 'building', location: 'mapPin', machine: 'robot', part: 'cpu' };
const icon = (name: string, size: number, className: string) => `<svg class="${className}" width="${size}" height="${size}" focusable="false"><use href="#boot-icon-${name}"/></svg>`;

/** Indentation as elements, one per level below the top (the CSP allows no inline style; each is the tree's 14 px with the row's gap). */
const indents = (level: number) => '<span class="boot-indent"></span>'.repeat(Math.min(level, FLEET_FRAME_LEVELS) - 1);

function rowHtml(row: FleetFrameRow): string {
  const toggle = row.expandable ? `<span class="boot-toggle${row.expanded ? ' open' : ''}">${icon('chevron', 12, 'boot-chevron')}</span>` : '<span class="boot-toggle"></span>';
  const badges = (row.main ? '<span class="boot-badge">main</span>' : '') + (row.shared ? '<span class="boot-badge">shared</span>' : '');
  const count = row.count !== undefined && (row.kind === 'org' || row.kind === 'location') ? `<span class="boot-count">${row.count}</span>` : '';
  // Hollow, as the app's own first view shows a part last seen in a run before this one.
  const dot = row.kind === 'machine' || row.kind === 'part' ? '<span class="boot-dot"></span>' : '';
  return (
    `<div class="boot-row" data-kind="${row.kind}" data-name="${escapeHtml(row.label)}"${row.count !== undefined ? ` data-count="${row.count}"` : ''}>` +
    `<div class="boot-row-in${row.selected ? ' selected' : ''}">${indents(row.level)}${toggle}${icon(ICON[row.kind], 15, 'boot-kind')}` +
    `<span class="boot-label">${escapeHtml(row.label)}</span>${badges}${count}${dot}</div></div>`
  );
}

/** The sidebar's content for `frame`: the heading, the search box's place, the rows. Hidden from assistive tech: the app's tree is the one to use. */
export function fleetFrameHtml(frame: FleetFrame): string {
  return (
    '<div class="boot-fleet" aria-hidden="true"><div class="boot-fleet-head">Fleet</div>' +
    `<div class="boot-fleet-search">${icon('search', 14, 'boot-search-icon')}<span>Search names</span></div>` +
    `<div class="boot-rows">${frame.rows.map(rowHtml).join('')}</div></div>`
  );
}

/** The profile the page is served for, and the organizations its cache holds. */
export interface FrameProfile {
  readonly profileId: string;
  readonly orgIds: ReadonlySet<string>;
}

/**
 * index.html with `stored` (the profile's `fleet.frame`, as read from its cache) drawn into its
 * sidebar; unchanged when nothing usable is stored — none yet, a tree with no rows, a value an
 * older or newer version wrote in another shape, rows of another profile or of an organization its
 * cache no longer holds — since a plain frame is always right.
 */
export function pageWithFleetFrame(indexHtml: string, stored: unknown, profile: FrameProfile): string {
  if (stored === null || !indexHtml.includes(FLEET_FRAME_MARK)) return indexHtml;
  const frame = fleetFrameSchema.safeParse(stored);
  if (!frame.success || frame.data.rows.length === 0 || frame.data.profileId !== profile.profileId) return indexHtml;
  if (frame.data.rows.some((row) => row.kind === 'org' && (row.orgId === undefined || !profile.orgIds.has(row.orgId)))) return indexHtml;
  const html = fleetFrameHtml(frame.data);
  // A function, not a string: `$&` and the like in a name would otherwise be read as patterns.
  return indexHtml.replace(FLEET_FRAME_MARK, () => html);
}
