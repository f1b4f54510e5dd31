/**
 * What a simulated part logs in one second: like a robot's server and its modules — mostly INFO and
 * DEBUG at the part's own rate, some WARN, ERRORs with a caller, a stack trace and structured
 * fields, and now and then a burst of errors (a sensor dropping out, a motor stalling).
 */
import type { LogLevel, NewLogEntry } from './store';

/** A simulated part that is live now. */
export interface LoggingPart {
  readonly partId: string;
  readonly name: string;
  /** Lines a minute. */
  readonly perMin: number;
}

/** Chance per part per second of an error burst. */
const BURST_CHANCE = 0.004;

const INFO = [
  'heartbeat ok: {n} components healthy',
  'config reloaded (revision {n})',
  'connected to cloud, session {id}',
  'motion plan executed in {ms} ms',
  'battery at {pct}%',
  'frame processed in {ms} ms',
  'docking station reached',
  'job {id} finished',
];
const DEBUG = ['polling {src} every {ms} ms', 'cache hit for {id}', 'pose estimate x={n} y={n}', 'websocket ping {ms} ms', 'queue depth {n}'];
const WARN = ['slow frame: {ms} ms over budget', 'retrying connection to {src} (attempt {n})', 'battery low: {pct}%', 'clock skew {ms} ms', 'dropped {n} packets'];
const ERROR = ['motor {n} stalled: current over limit', 'camera {src} stopped answering', 'failed to reach planner: deadline exceeded', 'lidar scan incomplete ({n} points)', 'module crashed, restarting'];

/** A level as robots log them: mostly INFO and DEBUG, some WARN, a few ERROR. */
export function simulatedLevel(random: () => number = Math.random): LogLevel {
  const roll = random();
  return roll < 0.3 ? 'DEBUG' : roll < 0.86 ? 'INFO' : roll < 0.96 ? 'WARN' : 'ERROR';
}

/** One line of `part` at `timeUs`. */
export function simulatedLine(part: Pick<LoggingPart, 'partId' | 'name'>, level: LogLevel, timeUs: number, random: () => number = Math.random): NewLogEntry {
  return lineMaker(part, timeUs, random)(level, 0);
}

/** Lines of `part` at any time: for many lines of one part, cheaper than {@link simulatedLine} each. */
export function simulatedLineMaker(part: Pick<LoggingPart, 'partId' | 'name'>, random: () => number = Math.random): (level: LogLevel, timeUs: number) => NewLogEntry {
  return lineMaker(part, 0, random);
}

export function simulatedLines(part: LoggingPart, now: Date, random: () => number = Math.random): NewLogEntry[] {
  const line = lineMaker(part, now.getTime() * 1000, random);
  const out: NewLogEntry[] = [];
  // The part's rate, in whole lines: the fraction carried by chance.
  const expected = part.perMin / 60;
  const count = Math.floor(expected) + (random() < expected % 1 ? 1 : 0);
  for (let i = 0; i < count; i++) out.push(line(simulatedLevel(random), Math.floor(random() * 999_000)));
  if (random() < BURST_CHANCE) {
    const burst = 5 + Math.floor(random() * 10);
    for (let i = 0; i < burst; i++) out.push(line(random() < 0.7 ? 'ERROR' : 'WARN', 999_000 + i));
  }
  return out.sort((a, b) => a.timeUs - b.timeUs);
}

function lineMaker(part: Pick<LoggingPart, 'partId' | 'name'>, baseUs: number, random: () => number): (level: LogLevel, offsetUs: number) => NewLogEntry {
  const sources = ['rdk.robot_server', 'rdk.resource_manager', `module.${part.name.split('-').at(-1) ?? 'agent'}`];
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const fill = (template: string) =>
    template
      .replace(/\{n\}/g, () => String(Math.floor(random() * 64)))
      .replace(/\{ms\}/g, () => String(Math.floor(random() * 400)))
      .replace(/\{pct\}/g, () => String(Math.floor(random() * 100)))
      .replace(/\{id\}/g, () => Math.floor(random() * 0xffffff).toString(16).padStart(6, '0'))
      .replace(/\{src\}/g, () => pick(['front', 'rear', 'arm', 'base']));
  const line = (level: LogLevel, offsetUs: number): NewLogEntry => {
    const source = pick(sources);
    const message = fill(pick(level === 'ERROR' ? ERROR : level === 'WARN' ? WARN : level === 'DEBUG' ? DEBUG : INFO));
    const failing = level === 'ERROR';
    return {
      partId: part.partId,
      timeUs: baseUs + offsetUs,
      level,
      message,
      source,
      host: part.name,
      caller: failing || level === 'WARN' ? { file: `${source.replace(/\./g, '/')}/${pick(['server', 'manager', 'driver'])}.go`, line: 40 + Math.floor(random() * 400), function: pick(['Run', 'Reconfigure', 'Poll', 'Step']) } : null,
      stack: failing ? `goroutine ${Math.floor(random() * 900)} [running]:\n${source}.(*driver).Step(...)\n\t/src/${source}/driver.go:${100 + Math.floor(random() * 200)}\nmain.loop()\n\t/src/main.go:42` : '',
      fields: failing || random() < 0.2 ? [{ component: pick(['base', 'arm', 'camera', 'lidar']), attempt: 1 + Math.floor(random() * 3) }] : [],
    };
  };
  return line;
}
