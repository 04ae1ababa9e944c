// A phone's browser: Debian's Chromium, headless, driven through its chromedriver, at a phone's
// viewport with touch. Each call gets a fresh profile (its own cookies), as a device of its own.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { remote } from 'webdriverio';
import { freePort, listening } from './driver.mjs';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMEDRIVER = '/usr/bin/chromedriver';

/** A phone-sized screen: a Pixel-like 390x844 by default, with touch. */
export const PHONE = { width: 390, height: 844 };
export const TABLET = { width: 768, height: 1024 };

/**
 * Opens a headless Chromium at `size`; returns {browser, close}. `notifications`: the user let
 * pages notify (as a tap on *Notify me* and the browser's prompt would).
 */
export async function openPhone({ size = PHONE, userAgent, notifications = false } = {}) {
  const port = await freePort();
  const profile = mkdtempSync(join(tmpdir(), 'switchboard-phone-'));
  const driver = spawn(CHROMEDRIVER, [`--port=${port}`], { stdio: 'ignore' });
  const deadline = Date.now() + 15_000;
  while (!(await listening(port))) {
    if (Date.now() > deadline) throw new Error('chromedriver did not listen');
    await sleep(50);
  }
  const browser = await remote({
    hostname: '127.0.0.1',
    port,
    logLevel: 'error',
    capabilities: {
      browserName: 'chrome',
      'goog:chromeOptions': {
        binary: CHROMIUM,
        args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', `--user-data-dir=${profile}`],
        ...(notifications ? { prefs: { 'profile.default_content_setting_values.notifications': 1 } } : {}),
        mobileEmulation: {
          deviceMetrics: { width: size.width, height: size.height, pixelRatio: 2, touch: true },
          userAgent: userAgent ?? 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0 Mobile Safari/537.36',
        },
      },
    },
  });
  return {
    browser,
    async close() {
      await browser.deleteSession().catch(() => {});
      driver.kill();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * From the page `browser` shows, opens the engine's socket the way any script of an origin may
 * (`url`: ws://…/ws), says hello, sends `command`, and answers with what came back: the welcome or
 * not, the reply to the command, and the close code if the socket closed. Frames as wire.rs.
 */
export async function commandFromPage(browser, url, command) {
  return browser.executeAsync(
    (url, command, done) => {
      const frame = (value) => {
        const body = new TextEncoder().encode(JSON.stringify(value));
        const bytes = new Uint8Array(5 + body.length);
        new DataView(bytes.buffer).setUint32(0, body.length + 1);
        bytes[4] = 0;
        bytes.set(body, 5);
        return bytes;
      };
      const result = { welcomed: false, reply: null, closed: null };
      const socket = new WebSocket(url);
      socket.binaryType = 'arraybuffer';
      socket.onopen = () =>
        socket.send(frame({ protocol: 1, app_version: '0.1.0', build_id: '', client_kind: 'browser', client_id: 'probe' }));
      socket.onmessage = (message) => {
        const value = JSON.parse(new TextDecoder().decode(new Uint8Array(message.data).subarray(5)));
        if (value.type === 'welcome') {
          result.welcomed = true;
          socket.send(frame({ type: 'request', id: 1, request: { type: 'command', command } }));
        } else if (value.type === 'reply' && value.id === 1) {
          result.reply = value.answer;
          socket.close();
        }
      };
      socket.onclose = (event) => {
        result.closed = event.code;
        done(result);
      };
    },
    url,
    command,
  );
}
