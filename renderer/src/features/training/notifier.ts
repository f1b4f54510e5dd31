/**
 * Desktop notifications for ended jobs in browser mode (Electron's main shows native ones): the
 * `Notifier` port the store talks to, and the page's own Notification API behind it.
 */
export type NotifyPermission = 'default' | 'granted' | 'denied' | 'unsupported';

/**
 * Where desktop notifications go: the page's Notification API in browser mode (`browserNotifier`),
 * a fake in tests. Permission is asked only from what the user did (submitting, "Notify me").
 */
export interface Notifier {
  permission(): NotifyPermission;
  /** Call from a user gesture only (before any await in its handler). */
  request(): Promise<NotifyPermission>;
  show(notice: { title: string; body: string; tag: string }, onclick: () => void): void;
}

/** The page's own Notification API; clicking one focuses the window, then runs `onclick`. */
export function browserNotifier(scope: { Notification?: typeof Notification; focus?: () => void } = globalThis as never): Notifier {
  const api = () => scope.Notification;
  return {
    permission: () => api()?.permission ?? 'unsupported',
    async request() {
      const N = api();
      if (!N) return 'unsupported';
      try {
        return await N.requestPermission();
      } catch {
        return N.permission;
      }
    },
    show(notice, onclick) {
      const N = api();
      if (!N || N.permission !== 'granted') return;
      try {
        const shown = new N(notice.title, { body: notice.body, tag: notice.tag });
        shown.onclick = () => {
          scope.focus?.();
          shown.close();
          onclick();
        };
      } catch {
        // A browser that allows only service-worker notifications: the in-app notice said the same.
      }
    },
  };
}
