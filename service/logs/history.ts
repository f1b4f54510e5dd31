/**
 * The past a simulated part has logged before the service started: what a new demo data dir holds so
 * that the first log view, its histogram and the fleet-wide search show something on first launch,
 * instead of filling over minutes from the live simulation.
 *
 * A day of a part's log, sampled: at its own rate, a busy part's day is up to 130,000 lines and the
 * demo fleet's more than four million — a setup of minutes, and more than the retention keeps. The
 * history keeps one minute of the part's log in HISTORY_SAMPLE, spread over the day with its rhythm
 * (busier by day than by night), so a part's volume still follows its rate (a chatty part has ten times
 * the history of a quiet one), a busy part's day fits in its first log view (1,000 lines), and the
 * whole fleet's day is about 27,000 lines, written in a few hundred milliseconds (bench/demo-setup.ts).
 * On it, the episodes an operator looks for:
 * - an error burst: ERRORs and WARNs within a minute, led by a safety stop ({@link BURST_MARK});
 * - a restart: the part says it shuts down, logs nothing for minutes, then starts up again;
 * - a part that went quiet: its log ends when it stopped checking in.
 * A part never has more than the retention keeps: a quarter of RETAIN_PER_PART at most, and a day old
 * at most (RETAIN_DAYS is a week).
 */
import { simulatedLevel, simulatedLineMaker, type LoggingPart } from './simulated';
import { RETAIN_PER_PART, type LogLevel, type NewLogEntry } from './store';

/** How far back the history goes: well inside the age the retention keeps (RETAIN_DAYS). */
export const HISTORY_HOURS = 24;
/** One minute of a part's log in this many is kept in its history (see the file's comment). */
export const HISTORY_SAMPLE = 240;
/** The words every error burst starts with: what the fleet-wide search finds it by. */
export const BURST_MARK = 'safety stop';
/** A busy part (lines a minute) has its burst within the last hours, where its first log view opens. */
const BUSY_PER_MIN = 30;
const HOUR_US = 3_600_000_000;
const MINUTE_US = 60_000_000;

/** A part whose past to write: its rate, and when it stopped checking in (null: it is live now). */
export interface HistoryPart extends LoggingPart {
  readonly quietSinceUs: number | null;
}

/**
 * The part's log over the HISTORY_HOURS before `nowUs`, oldest first: never more than the
 * retention keeps (per part, and in age).
 */
export function historyLines(part: HistoryPart, nowUs: number, random: () => number): NewLogEntry[] {
  const startUs = nowUs - HISTORY_HOURS * HOUR_US;
  const endUs = Math.min(nowUs, part.quietSinceUs ?? nowUs);
  if (part.perMin <= 0 || endUs <= startUs) return [];
  const out: NewLogEntry[] = [];
  const line = simulatedLineMaker(part, random);
  // The day's rhythm: an hour's share of the lines follows the hour of the day (UTC, the service's clock).
  const hours = Array.from({ length: HISTORY_HOURS }, (_, h) => {
    const hourOfDay = new Date((startUs + h * HOUR_US) / 1000).getUTCHours();
    return 0.35 + 0.65 * Math.max(0, Math.sin(((hourOfDay - 5) / 24) * 2 * Math.PI)) + 0.15 * random();
  });
  const weight = hours.reduce((a, b) => a + b, 0);
  const total = Math.min(Math.round((part.perMin * HISTORY_HOURS * 60) / HISTORY_SAMPLE), RETAIN_PER_PART / 4);
  // The restart: a gap of a few minutes, for half the parts.
  const restartUs = random() < 0.5 ? startUs + Math.floor(random() * Math.max(0, endUs - startUs - 10 * MINUTE_US)) : null;
  const downUs = (2 + Math.floor(random() * 5)) * MINUTE_US;
  for (const [h, w] of hours.entries()) {
    const hourUs = startUs + h * HOUR_US;
    const n = Math.round((total * w) / weight);
    for (let i = 0; i < n; i++) {
      const t = hourUs + Math.floor(random() * HOUR_US);
      if (t >= endUs || (restartUs !== null && t >= restartUs && t < restartUs + downUs)) continue;
      out.push(line(simulatedLevel(random), t));
    }
  }
  if (restartUs !== null && restartUs + downUs < endUs) {
    const say = (level: 'INFO' | 'WARN', message: string, t: number): NewLogEntry => ({ ...line(level, t), message, source: 'rdk.robot_server', caller: null, stack: '', fields: [] });
    out.push(say('WARN', 'shutting down: restart requested', restartUs - 1));
    out.push(say('INFO', `robot server starting (agent 1.${Math.floor(random() * 10)}.${Math.floor(random() * 13)})`, restartUs + downUs));
    out.push(say('INFO', `all ${3 + Math.floor(random() * 6)} components ready`, restartUs + downUs + 2_000_000 + Math.floor(random() * 6_000_000)));
  }
  out.push(...burst(part, line, startUs, endUs, nowUs, random));
  return out.sort((a, b) => a.timeUs - b.timeUs);
}

/** An error burst at a random time of the part's day; a busy part's within the last three hours. */
function burst(part: HistoryPart, line: (level: LogLevel, timeUs: number) => NewLogEntry, startUs: number, endUs: number, nowUs: number, random: () => number): NewLogEntry[] {
  const from = part.perMin >= BUSY_PER_MIN && part.quietSinceUs === null ? Math.max(startUs, nowUs - 3 * HOUR_US) : startUs;
  const to = endUs - 2 * MINUTE_US;
  if (to <= from) return [];
  const atUs = from + Math.floor(random() * (to - from));
  const component = ['base', 'arm', 'lidar', 'camera'][Math.floor(random() * 4)] ?? 'base';
  const first = line('ERROR', atUs);
  const lines = [{ ...first, message: `${BURST_MARK}: ${component} fault latched, motion halted` }];
  const n = 12 + Math.floor(random() * 18);
  for (let i = 1; i < n; i++) lines.push(line(random() < 0.75 ? 'ERROR' : 'WARN', atUs + Math.floor((i * 45_000_000) / n)));
  return lines;
}
