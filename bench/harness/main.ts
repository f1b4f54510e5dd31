/**
 * A page that shows the renderer's config kit (renderer/src/lib/config) without the app around it,
 * for bench/config-editor.ts and test/e2e/config-kit.spec.ts: the kit's components have no page of
 * their own until the config features use them. Built by bench/harness/harness.ts with the
 * renderer's Svelte setup and served under the app's CSP, so what runs here runs in the app.
 *
 * It exposes `window.harness`: mount a component or the plain-CodeMirror baseline, and time things
 * in the page (a frame's end is "after next paint", as bench/browser.ts measures it).
 */
import { mount, unmount } from 'svelte';
import '../../renderer/src/styles/global.css';
import ConfigDiff from '../../renderer/src/lib/config/ConfigDiff.svelte';
import ConfigEditor from '../../renderer/src/lib/config/ConfigEditor.svelte';
import ConflictMerge from '../../renderer/src/lib/config/ConflictMerge.svelte';
import type { ConfigChoices } from '../../renderer/src/lib/config/completion';
import { ConflictResolution } from '../../renderer/src/lib/config/conflicts.svelte';
import { ConfigDocument } from '../../renderer/src/lib/config/document.svelte';
import { mergeConfigs } from '../../renderer/src/lib/config/merge-result';
import { fixtureConfig, fixtureModules } from '../../renderer/src/lib/testing/config-fixtures';

const host = document.getElementById('harness')!;
const choices: ConfigChoices = {
  modules: fixtureModules.map((m) => ({ id: m.id, models: m.models, detail: 'registry module' })),
  fragments: [
    { id: 'frag-amr-base', name: 'AMR base', detail: 'Acme Warehouse Robotics, private' },
    { id: 'frag-lidar', name: 'Front lidar' },
  ],
  models: [{ api: 'rdk:component:camera', model: 'rdk:builtin:webcam' }],
};

/** Resolves after the next frame's rendering work (a task posted from an animation frame). */
const afterPaint = () =>
  new Promise<number>((resolve) =>
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve(performance.now());
      channel.port2.postMessage(null);
    }),
  );

/** Waits (frame by frame) until `done()`; rejects after `limitMs`. */
async function until(done: () => boolean, limitMs = 30_000): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > limitMs) throw new Error('timed out');
    await afterPaint();
  }
}

/** The editor's content element inside a component's shadow root. */
const content = (root: Element | null) => root?.querySelector('.editor')?.shadowRoot?.querySelector<HTMLElement>('.cm-content') ?? null;

let shown: { destroy(): void } | null = null;
let document0: ConfigDocument | null = null;

function clear(): void {
  shown?.destroy();
  shown = null;
  host.replaceChildren();
}

const harness = {
  /** Texts made in the page (no 1 MiB over the DevTools protocol): the fixture config and two edited versions of it. */
  texts(components: number) {
    const base = fixtureConfig(components);
    const yours = fixtureConfig(components, (i, c) => (i % 97 === 3 ? { ...c, model: 'acme-warehouse:slam:map-view' } : i === Math.floor(components / 2) ? { ...c, attributes: { mine: 1 } } : c));
    const theirs = fixtureConfig(components, (i, c) => (i % 89 === 5 ? { ...c, attributes: { ...c.attributes, theirs: true } } : i === Math.floor(components / 2) ? { ...c, attributes: { theirs: 2 } } : i === components - 10 ? [c, { ...c, name: 'added-by-them' }] : c));
    return { base, yours, theirs };
  },

  /**
   * Mounts ConfigEditor on a ConfigDocument of `text`; answers the milliseconds from the call to
   * the frame that shows the text (CodeMirror loaded, the text checked, drawn).
   */
  async openEditor(text: string, readonly = false): Promise<number> {
    clear();
    const started = performance.now();
    const target = document.createElement('div');
    host.append(target);
    const doc = new ConfigDocument(text);
    document0 = doc;
    const component = mount(ConfigEditor, { target, props: { document: doc, label: 'Config of part bench-main', choices, readonly, onsave: () => ((window as unknown as { saved: string }).saved = doc.text) } });
    shown = { destroy: () => unmount(component) };
    await until(() => (content(target)?.querySelector('.cm-line') ?? null) !== null);
    return (await afterPaint()) - started;
  },

  /** The baseline: CodeMirror alone (basicSetup and JSON) with the same text, in a shadow root as the app's editors are. */
  async openPlain(text: string): Promise<number> {
    clear();
    const started = performance.now();
    const [{ basicSetup, EditorView }, { json }] = await Promise.all([import('codemirror'), import('@codemirror/lang-json')]);
    const target = document.createElement('div');
    target.className = 'editor';
    target.style.cssText = 'height: 60vh';
    host.append(target);
    const root = target.attachShadow({ mode: 'open' });
    const parent = document.createElement('div');
    root.append(parent);
    const view = new EditorView({ doc: text, parent, root, extensions: [basicSetup, json(), EditorView.theme({ '&': { maxHeight: '60vh' }, '.cm-scroller': { overflow: 'auto' } })] });
    shown = { destroy: () => view.destroy() };
    await until(() => (content(host)?.querySelector('.cm-line') ?? null) !== null);
    return (await afterPaint()) - started;
  },

  /** Puts the cursor of the shown editor right after the first occurrence of `needle`, and focuses it. */
  async placeCursor(needle: string): Promise<void> {
    const el = content(host);
    if (!el) throw new Error('no editor shown');
    const { EditorView } = await import('@codemirror/view');
    const view = EditorView.findFromDOM(el);
    if (!view) throw new Error('no view');
    const at = view.state.doc.toString().indexOf(needle);
    if (at < 0) throw new Error(`no ${needle} in the text`);
    view.dispatch({ selection: { anchor: at + needle.length }, scrollIntoView: true });
    view.focus();
    await afterPaint();
  },

  /** Starts recording each keydown's frame: from the event to the end of the frame that follows it. */
  recordKeys(): void {
    const times: number[] = [];
    (window as unknown as { keyTimes: number[] }).keyTimes = times;
    document.addEventListener(
      'keydown',
      () => {
        const start = performance.now();
        void afterPaint().then((end) => times.push(end - start));
      },
      { capture: true },
    );
  },

  /** The shown document's state, for tests. */
  state() {
    return document0 ? { dirty: document0.dirty, errors: document0.errors, problems: document0.problems.map((p) => p.message), text: document0.text, saved: document0.saved } : null;
  },

  /** Median milliseconds of `runs` three-way merges of the texts, and of as many JSON.parse of the base (the baseline). */
  async mergeTimes(components: number, runs: number): Promise<{ merge: number[]; parse: number[]; conflicts: number }> {
    const { base, yours, theirs } = harness.texts(components);
    const { mergeText } = await import('../../renderer/src/lib/config/merge');
    const merge: number[] = [];
    const parse: number[] = [];
    let conflicts = 0;
    for (let i = 0; i < runs; i++) {
      let started = performance.now();
      conflicts = mergeText(base, yours, theirs).conflicts.length;
      merge.push(performance.now() - started);
      started = performance.now();
      JSON.parse(base);
      parse.push(performance.now() - started);
      await afterPaint();
    }
    return { merge, parse, conflicts };
  },

  /** Mounts ConflictMerge on the merge of `base`, `yours`, `theirs`; the merged text lands in `window.merged`. */
  async showConflicts(base: string, yours: string, theirs: string): Promise<number> {
    clear();
    const target = document.createElement('div');
    host.append(target);
    const resolution = new ConflictResolution(await mergeConfigs(base, yours, theirs));
    const component = mount(ConflictMerge, { target, props: { resolution, onresolve: (merged: string) => ((window as unknown as { merged: string }).merged = merged), oncancel: () => undefined, theirsLabel: 'On the service, saved by ana@acme.example' } });
    shown = { destroy: () => unmount(component) };
    return resolution.conflicts.length;
  },

  /** Mounts ConfigDiff of two texts. */
  showDiff(before: string, after: string, layout: 'split' | 'unified' = 'split'): void {
    clear();
    const target = document.createElement('div');
    host.append(target);
    const component = mount(ConfigDiff, { target, props: { before, after, beforeLabel: 'Revision 3, by ana@acme.example', afterLabel: 'Current config', layout } });
    shown = { destroy: () => unmount(component) };
  },
};

(window as unknown as { harness: typeof harness }).harness = harness;
document.body.dataset.ready = 'true';
