import { afterEach, vi } from 'vitest';

/**
 * What jsdom lacks and the UI's libraries use: the command palette's list (bits-ui) measures
 * itself with ResizeObserver and scrolls its chosen item into view. Neither has anything to
 * do without layout, so they do nothing here.
 */
if (typeof globalThis.ResizeObserver === 'undefined') {
  globalThis.ResizeObserver = class {
    observe(): void {}
    unobserve(): void {}
    disconnect(): void {}
  };
}
if (typeof Element.prototype.scrollIntoView !== 'function') {
  Element.prototype.scrollIntoView = function scrollIntoView(): void {};
}

/**
 * Test files share a page (the config does not isolate them): what one test leaves in storage,
 * in the document or in the clock is not seen by the next.
 */
afterEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  vi.useRealTimers();
  document.body.innerHTML = '';
});
