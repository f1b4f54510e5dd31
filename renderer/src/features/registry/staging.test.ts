import { afterEach, describe, expect, it, vi } from 'vitest';
import { stageWithFetch } from './staging';

const file = (name: string, bytes = 10) => new File([new Uint8Array(bytes)], name, { type: 'application/gzip' });

describe('handing files to the backend (browser mode)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends two files at a time, and sends one the backend was too busy for again after the wait it names', async () => {
    let sending = 0;
    let most = 0;
    const sent: string[] = [];
    let busy = true;
    vi.stubGlobal('fetch', async (url: string) => {
      sending += 1;
      most = Math.max(most, sending);
      sent.push(url);
      await new Promise((r) => setTimeout(r, 5));
      sending -= 1;
      if (url.includes('c.tar.gz') && busy) {
        busy = false;
        return new Response(JSON.stringify({ error: '4 files are being handed to the app already' }), { status: 429, headers: { 'Retry-After': '0' } });
      }
      return Response.json({ stagedId: `staged-${url.slice(-8)}-0123456789`, fileName: 'f.tar.gz' });
    });
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => stageWithFetch(file(`${n}.tar.gz`))));
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true]);
    expect(most).toBe(2);
    expect(sent.filter((u) => u.includes('c.tar.gz'))).toHaveLength(2);
  });

  it("shows the backend's refusal as it is worded: what happened and what to do", async () => {
    const why = "The disk holding this app's data (/data/staging) is full, so x.tar.gz could not be kept for upload; what had arrived of it was deleted. Free space on that disk (delete files you no longer need, or remove files from the upload queue), then add it again.";
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ error: why }), { status: 507 }));
    expect(await stageWithFetch(file('x.tar.gz'))).toEqual({ ok: false, error: { kind: 'conflict', message: `Couldn't hand x.tar.gz to the app: ${why}` } });
  });
});
