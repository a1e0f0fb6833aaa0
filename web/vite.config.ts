import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// The hub embeds ../internal/console/dist. The build empties it first, but
// the folder's committed placeholder (.gitkeep) must stay, so put it back.
const outDir = resolve(import.meta.dirname, '../internal/console/dist');

function keepGitkeep(): Plugin {
  return {
    name: 'hostgate-keep-gitkeep',
    apply: 'build',
    closeBundle() {
      mkdirSync(outDir, { recursive: true });
      writeFileSync(resolve(outDir, '.gitkeep'), '');
    },
  };
}

// A hub started by hand (see FOUNDATION.md) answers /v1 during `npm run dev`.
const hub = process.env.HOSTGATE_HUB ?? 'http://127.0.0.1:18091';

export default defineConfig({
  plugins: [react(), keepGitkeep()],
  build: {
    outDir,
    emptyOutDir: true,
    manifest: true,
    assetsDir: 'assets',
    // No data: URIs: every asset is a hashed file under /assets (simpler CSP).
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: {
      '/v1': { target: hub, ws: true, changeOrigin: false },
    },
  },
  preview: {
    proxy: {
      '/v1': { target: hub, ws: true, changeOrigin: false },
    },
  },
});
