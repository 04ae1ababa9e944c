/**
 * The system's notifications, for a page an engine served to a paired browser: the page's own
 * notices (`PageNotice`, decided by the engine) shown by the system too while the page is not
 * looked at, where the browser lets a page do so (a secure context: loopback, or HTTPS with a
 * certificate the browser trusts; and the user's permission). They come through the service
 * worker (`public/sw.js`), which caches nothing: there is no push through a vendor's service, so
 * a page that is closed is told nothing.
 */
import type { OpenTarget, PageNotice } from './bindings';

/** Where the service worker is served (the page's origin: its scope is the whole page). */
export const WORKER_URL = '/sw.js';

/** Whether this browser can show this page's notices as the system's (permission aside). */
export function systemNoticesPossible(): boolean {
  return typeof window !== 'undefined' && window.isSecureContext && 'Notification' in window && 'serviceWorker' in navigator;
}

/** What the user said to this page's notifications: not asked yet, allowed, or refused (or impossible). */
export function systemNoticesAllowed(): NotificationPermission | 'impossible' {
  return systemNoticesPossible() ? Notification.permission : 'impossible';
}

/** Registers the service worker; its failure (a certificate not trusted, say) only costs the system's notifications. */
export function registerWorker(): void {
  if (!systemNoticesPossible()) return;
  navigator.serviceWorker.register(WORKER_URL).catch((reason: unknown) => console.warn('the service worker was not registered:', reason));
}

/** Asks the user to let the page notify (call it from a tap: browsers ask only then). */
export async function askToNotify(): Promise<NotificationPermission | 'impossible'> {
  if (!systemNoticesPossible()) return 'impossible';
  return Notification.requestPermission();
}

async function registration(): Promise<ServiceWorkerRegistration | null> {
  if (!systemNoticesPossible() || Notification.permission !== 'granted') return null;
  return (await navigator.serviceWorker.getRegistration()) ?? null;
}

/**
 * Shows or closes the system's notification of a notice, as the page shows or closes its own:
 * shown only while the page is not looked at (`away`), one per place, a newer replacing it.
 */
export async function tellSystem(notice: PageNotice, away: boolean): Promise<void> {
  const shown = await registration();
  if (shown === null) return;
  if (notice.type === 'close') {
    for (const open of await shown.getNotifications({ tag: notice.place })) open.close();
    return;
  }
  if (!away) return;
  await shown.showNotification(notice.title, {
    body: notice.body,
    tag: notice.place,
    requireInteraction: notice.stays,
    data: { opens: notice.opens },
  });
}

/** Hears a tap on one of the system's notifications: what it opens (null: just the page). */
export function onSystemNoticeOpened(callback: (opens: OpenTarget | null) => void): () => void {
  if (!('serviceWorker' in navigator)) return () => {};
  const heard = (event: MessageEvent) => {
    const said = event.data as { switchboard?: string; opens?: OpenTarget | null } | null;
    if (said?.switchboard === 'open') callback(said.opens ?? null);
  };
  navigator.serviceWorker.addEventListener('message', heard);
  return () => navigator.serviceWorker.removeEventListener('message', heard);
}
