/**
 * How the renderer says sizes, durations, hashes and schema messages. Several domains show them
 * (the registry's uploads and versions, training's datasets and job durations), so they live here
 * rather than in one domain that the others would have to import.
 */

const UNITS = ['KiB', 'MiB', 'GiB'] as const;

/** "812 bytes", "1.4 KiB", "37.2 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes.toLocaleString()} ${bytes === 1 ? 'byte' : 'bytes'}`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? Math.round(value).toLocaleString() : value.toFixed(1)} ${UNITS[unit]}`;
}

/** "4.2 MiB/s". */
export function formatSpeed(bytesPerSecond: number): string {
  return `${formatBytes(Math.round(bytesPerSecond))}/s`;
}

/** "12 s", "3 min 5 s", "1 h 4 min". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

/** The first 12 hex digits of a SHA-256, for tables (the whole is copied). */
export function shortHash(sha256: string): string {
  return sha256.length > 12 ? `${sha256.slice(0, 12)}…` : sha256;
}

/** A schema's first issue as a sentence ("Must be a semantic version …."). */
export function sentence(message: string): string {
  const text = message.trim();
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
}

