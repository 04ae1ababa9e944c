// Switchboard's service worker, for a page an engine served to a paired browser. It is there
// for the system's notifications alone: it caches nothing and answers no request (no fetch
// handler), so an agent's data never outlives the page. A tap on a notification brings the page
// back (or opens it) and tells it what the notification is about.

self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const opens = event.notification.data?.opens ?? null;
  event.waitUntil(
    (async () => {
      const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const page = pages[0];
      if (page) {
        await page.focus();
        page.postMessage({ switchboard: 'open', opens });
        return;
      }
      await self.clients.openWindow('/');
    })(),
  );
});
