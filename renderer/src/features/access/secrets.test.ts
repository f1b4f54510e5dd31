import { describe, expect, it } from 'vitest';
import type { SecretList } from '../../../../common/access';
import { err, ok } from '../../../../common/result';
import { fakeBridge } from '../../lib/testing/fake-transport';
import { SecretsView } from './secrets.svelte';

const list = (ids: readonly string[]): SecretList => ({ owner: 'location', ownerId: 'reno', secrets: ids.map((id) => ({ id, createdOn: null })) });

function setup() {
  const { transport, bridge } = fakeBridge();
  let ids = ['s1'];
  transport
    .handle('access.locationSecrets', () => ok(list(ids)))
    .handle('access.createLocationSecret', () => {
      ids = [...ids, 's2'];
      return ok({ list: list(ids), id: 's2', value: 'v-s2', createdOn: null });
    })
    .handle('access.deleteLocationSecret', ({ secretId }) => {
      ids = ids.filter((id) => id !== secretId);
      return ok(list(ids));
    })
    .handle('access.revealSecret', ({ secretId }) => (secretId === 's1' ? ok({ id: 's1', value: 'v-s1' }) : err('not-found', 'No such secret.')));
  return { transport, view: new SecretsView(bridge, 'o1', 'location', 'reno') };
}

describe('a location’s secrets', () => {
  it('lists without values, makes one (its value answered once), deletes one', async () => {
    const { view } = setup();
    await view.load();
    expect(view.list.value?.secrets).toHaveLength(1);
    const made = await view.create();
    expect(made.ok && made.value.value).toBe('v-s2');
    expect(JSON.stringify(view.list.value)).not.toContain('v-s2');
    expect(view.list.value?.secrets.map((s) => s.id)).toEqual(['s1', 's2']);
    await view.delete('s2');
    expect(view.list.value?.secrets.map((s) => s.id)).toEqual(['s1']);
  });

  it('copies a value read for that copy only, and says a refused one', async () => {
    const { view } = setup();
    await view.load();
    const copied: string[] = [];
    expect((await view.copy('s1', async (text) => void copied.push(text))).ok).toBe(true);
    expect(copied).toEqual(['v-s1']);
    const refused = await view.copy('s9', async (text) => void copied.push(text));
    expect(!refused.ok && refused.error.message).toMatch(/^No such secret\. It may have been removed meanwhile/);
    const clipboardless = await view.copy('s1', () => Promise.reject(new Error('Document is not focused.')));
    expect(!clipboardless.ok && clipboardless.error.message).toMatch(/clipboard refused the secret \(Document is not focused\.\)/);
  });

  it('warns harder before the last secret goes', async () => {
    const { view } = setup();
    await view.load();
    expect(view.deleteConsequences('Reno')[0]).toMatch(/^This is the last secret of Reno\. Once it is deleted, no machine can join Reno/);
    await view.create();
    expect(view.deleteConsequences('Reno')).toEqual(['Anything using this secret (machines joining Reno) stops connecting; the other secret keeps working.']);
  });
});
