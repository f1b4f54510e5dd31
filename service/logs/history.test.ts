import { describe, expect, it } from 'vitest';
import { BURST_MARK, HISTORY_HOURS, HISTORY_SAMPLE, historyLines } from './history';
import { RETAIN_PER_PART } from './store';

/** A fixed stream (mulberry32), so each run draws the same day. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NOW_US = Date.parse('2026-11-26T12:00:00Z') * 1000;
const HOUR_US = 3_600_000_000;
const part = { partId: 'p', name: 'amr-001-main', perMin: 60, quietSinceUs: null };

describe('historyLines', () => {
  it("spreads a sample of the part's rate over the last day, in time order, with one error burst in a busy part's last hours", () => {
    const lines = historyLines(part, NOW_US, seeded(1));
    const expected = (part.perMin * HISTORY_HOURS * 60) / HISTORY_SAMPLE;
    expect(lines.length).toBeGreaterThan(expected * 0.9);
    expect(lines.length).toBeLessThan(expected * 1.2);
    expect(lines.map((l) => l.timeUs)).toEqual(lines.map((l) => l.timeUs).sort((a, b) => a - b));
    expect(lines[0]!.timeUs).toBeGreaterThanOrEqual(NOW_US - HISTORY_HOURS * HOUR_US);
    expect(lines.at(-1)!.timeUs).toBeLessThanOrEqual(NOW_US);
    // Many hours hold lines: the histogram of a day has shape.
    expect(new Set(lines.map((l) => Math.floor((NOW_US - l.timeUs) / HOUR_US))).size).toBeGreaterThan(20);
    const burst = lines.filter((l) => l.message.startsWith(BURST_MARK));
    expect(burst).toHaveLength(1);
    expect(burst[0]!.level).toBe('ERROR');
    expect(burst[0]!.timeUs).toBeGreaterThan(NOW_US - 3 * HOUR_US);
    const errorsAfter = lines.filter((l) => l.timeUs >= burst[0]!.timeUs && l.timeUs < burst[0]!.timeUs + 60_000_000 && l.level === 'ERROR');
    expect(errorsAfter.length).toBeGreaterThan(5);
  });

  it('a part that went quiet logs until it did; a silent part has no past', () => {
    const quietSinceUs = NOW_US - 5 * HOUR_US;
    const lines = historyLines({ ...part, quietSinceUs }, NOW_US, seeded(2));
    expect(lines.length).toBeGreaterThan(100);
    expect(lines.at(-1)!.timeUs).toBeLessThanOrEqual(quietSinceUs);
    expect(historyLines({ ...part, perMin: 0 }, NOW_US, seeded(3))).toEqual([]);
  });

  it('a restart leaves a gap of minutes between shutting down and starting again', () => {
    // Half the parts restart: find one among a few days drawn.
    const random = seeded(4);
    const day = Array.from({ length: 8 }, () => historyLines(part, NOW_US, random)).find((d) => d.some((l) => l.message === 'shutting down: restart requested'))!;
    const down = day.findIndex((l) => l.message === 'shutting down: restart requested');
    const up = day[down + 1]!;
    expect(up.message).toMatch(/^robot server starting/);
    expect(up.timeUs - day[down]!.timeUs).toBeGreaterThanOrEqual(2 * 60_000_000);
  });

  it('stays within the retention, whatever the rate', () => {
    expect(historyLines({ ...part, perMin: 1_000_000 }, NOW_US, seeded(5)).length).toBeLessThanOrEqual(RETAIN_PER_PART / 4 + 100);
  });
});
