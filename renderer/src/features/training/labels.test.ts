import { describe, expect, it } from 'vitest';
import { endedJob, trainingJob } from '../../lib/testing/fixtures';
import { endedMessage, jobCountLabel, jobDuration, jobKind } from './labels';

describe('labels', () => {
  it('says what trains, and how long it ran (live while running)', () => {
    expect(jobKind(trainingJob())).toBe('Object detection');
    expect(jobKind(trainingJob('m', '1', { custom: true, modelType: null, registryItemId: 'acme:trainer', registryItemVersion: '0.3.1' }))).toBe('custom: trainer@0.3.1');
    const running = trainingJob();
    expect(jobDuration(running, Date.parse('2026-11-25T10:03:05.000Z'))).toBe('3 min 5 s');
    expect(jobDuration(running, Date.parse('2026-11-25T10:04:00.000Z'))).toBe('4 min');
    expect(jobDuration(endedJob('succeeded'), Date.parse('2030-01-01T00:00:00.000Z'))).toBe('12 min 5 s');
    expect(jobDuration(trainingJob('m', '1', { status: 'pending', startedOn: null }), Date.now())).toBeNull();
    expect(endedMessage(endedJob('failed', 'yard-detector', '4'))).toEqual({ title: 'Training failed: yard-detector 4', body: 'The trainer ran out of GPU memory. (RESOURCE_EXHAUSTED)' });
    expect(endedMessage(endedJob('succeeded', 'yard-detector', '4'))).toEqual({ title: 'Training succeeded: yard-detector 4', body: 'Trained in 12 min 5 s.' });
  });

  it('counts the jobs shown, and says the count is still growing while the rest of the list loads', () => {
    expect(jobCountLabel(1, null, 0, false, 1)).toBe('1 job');
    expect(jobCountLabel(4_900, 'failed', 2, false, 5_000)).toBe('4,900 jobs failed · 2 selected');
    expect(jobCountLabel(100, null, 0, true, 5_000)).toBe('100 jobs so far — loading the rest of 5,000 jobs…');
    expect(jobCountLabel(20, 'failed', 3, true, 5_000)).toBe('20 jobs failed so far — loading the rest of 5,000 jobs… · 3 selected');
  });
});
