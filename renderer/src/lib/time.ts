/** Time formatting for people. Times cross the bridge as ISO strings; `now` is epoch ms. */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function toMs(iso: string): number | null {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const clockSeconds = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
const dayMonth = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
const fullDate = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** "14:02" today, "21 Nov 14:02" another day. */
export function formatClock(iso: string, now: number, withSeconds = false): string {
  const ms = toMs(iso);
  if (ms === null) return iso;
  const date = new Date(ms);
  const time = (withSeconds ? clockSeconds : clock).format(date);
  return sameDay(date, new Date(now)) ? time : `${dayMonth.format(date)} ${time}`;
}

/** "just now", "3 min ago", "2 h ago", "yesterday", "5 days ago"; "in 2 min" for the future. */
export function formatRelative(iso: string, now: number): string {
  const ms = toMs(iso);
  if (ms === null) return iso;
  const diff = now - ms;
  const abs = Math.abs(diff);
  if (abs < 45_000) return diff >= 0 ? 'just now' : 'in a few seconds';
  let text: string;
  if (abs < HOUR) text = `${Math.max(1, Math.round(abs / MINUTE))} min`;
  else if (abs < DAY) text = `${Math.round(abs / HOUR)} h`;
  else {
    const days = Math.round(abs / DAY);
    if (days === 1) return diff >= 0 ? 'yesterday' : 'tomorrow';
    text = `${days} days`;
  }
  return diff >= 0 ? `${text} ago` : `in ${text}`;
}

/** "12 Mar 2025". */
export function formatDate(iso: string): string {
  const ms = toMs(iso);
  return ms === null ? iso : fullDate.format(new Date(ms));
}

/** Full date and time, for tooltips. */
/** Recent answers of formatDateTime: the rows and dots on screen format the same few times on every redraw. */
const formatted = new Map<string, string>();

export function formatDateTime(iso: string): string {
  const known = formatted.get(iso);
  if (known !== undefined) return known;
  const ms = toMs(iso);
  const text = ms === null ? iso : dateTime.format(new Date(ms));
  if (formatted.size >= 1_000) formatted.clear();
  formatted.set(iso, text);
  return text;
}
