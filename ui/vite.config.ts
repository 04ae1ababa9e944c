/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';

// The Tauri shell loads ui/dist from disk (relative asset URLs, hence base './') in release
// builds and the dev server below in `cargo tauri dev`; its devUrl must match host and port.
export default defineConfig({
  base: './',
  plugins: [svelte(), svelteTesting()],
  clearScreen: false,
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // WebKitGTK (Linux), WKWebView (macOS) and WebView2 (Windows) all run ES2022.
    target: ['es2022', 'chrome105', 'safari15'],
    // The bundle is loaded from disk; one chunk is simpler than splitting xterm out.
    chunkSizeWarningLimit: 1024,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test/setup.ts'],
    // One page per worker, shared by its test files: a fresh jsdom for each of ~70 files cost
    // two thirds of the run. What a file leaves behind is cleared after each test (setup.ts).
    pool: 'threads',
    isolate: false,
    // Tests wait for conditions, never for fixed times; on a loaded machine the window's beat
    // (once a second) can come late, so a test is given room before it is called stuck.
    testTimeout: 20_000,
  },
});
