/**
 * The web app's build: Preact + TypeScript, bundled into web/dist with content-hashed file names
 * (served by src/gateways/app-static.ts under /app). Runs at `npm install` (postinstall).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Everything from this origin: no inline scripts, no data: URLs for scripts, strict CSP possible.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 400,
  },
});
