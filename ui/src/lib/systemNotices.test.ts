import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PageNotice } from './bindings';
import { onSystemNoticeOpened, systemNoticesAllowed, tellSystem } from './systemNotices';

/** A browser's service worker registration, as far as the page uses it. */
class Registration {
  shown: { title: string; options: NotificationOptions }[] = [];
  closed: string[] = [];
  async showNotification(title: string, options: NotificationOptions): Promise<void> {
    this.shown.push({ title, options });
  }
  async getNotifications({ tag }: { tag: string }): Promise<{ close(): void }[]> {
    return this.shown.filter((n) => n.options.tag === tag).map(() => ({ close: () => this.closed.push(tag) }));
  }
}

let registration: Registration;
const worker = new EventTarget();

function browserThatNotifies(permission: NotificationPermission, secure = true): void {
  vi.stubGlobal('isSecureContext', secure);
  vi.stubGlobal('Notification', { permission, requestPermission: async () => permission });
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: Object.assign(worker, { getRegistration: async () => registration, register: async () => registration }),
  });
}

const asks: PageNotice = { type: 'show', place: 'agent:a', tone: 'asks', title: 'ana asks a question', body: 'Which port?', opens: { kind: 'signal', id: 's1' }, stays: true };

beforeEach(() => {
  registration = new Registration();
});

afterEach(() => {
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, 'serviceWorker');
});

describe('the system’s notifications of a page', () => {
  it('shows a notice only while the page is not looked at, in its place, and closes it when the engine does', async () => {
    browserThatNotifies('granted');
    await tellSystem(asks, false);
    expect(registration.shown).toEqual([]);
    await tellSystem(asks, true);
    expect(registration.shown).toEqual([
      { title: 'ana asks a question', options: { body: 'Which port?', tag: 'agent:a', requireInteraction: true, data: { opens: { kind: 'signal', id: 's1' } } } },
    ]);
    await tellSystem({ type: 'close', place: 'agent:a' }, false);
    expect(registration.closed).toEqual(['agent:a']);
  });

  it('shows nothing without the user’s permission, nor where the page is not a secure context', async () => {
    browserThatNotifies('default');
    expect(systemNoticesAllowed()).toBe('default');
    await tellSystem(asks, true);
    browserThatNotifies('granted', false);
    expect(systemNoticesAllowed()).toBe('impossible');
    await tellSystem(asks, true);
    expect(registration.shown).toEqual([]);
  });

  it('hears a tap on a notification as what it opens', () => {
    browserThatNotifies('granted');
    const opened: unknown[] = [];
    const stop = onSystemNoticeOpened((opens) => opened.push(opens));
    worker.dispatchEvent(new MessageEvent('message', { data: { switchboard: 'open', opens: { kind: 'task', id: 't1' } } }));
    worker.dispatchEvent(new MessageEvent('message', { data: { other: true } }));
    stop();
    worker.dispatchEvent(new MessageEvent('message', { data: { switchboard: 'open', opens: null } }));
    expect(opened).toEqual([{ kind: 'task', id: 't1' }]);
  });
});
