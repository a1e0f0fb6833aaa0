import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
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

// Libraries only the host and terminal pages need: the build fails when one
// of them lands in the JS the first page loads (the entry chunk and its
// static imports), which would blow the bundle budget.
const LAZY_ONLY = ['/node_modules/@xterm/', '/node_modules/uplot/'];

function lazyOnly(): Plugin {
  return {
    name: 'hostgate-lazy-only',
    apply: 'build',
    generateBundle(_opts, bundle) {
      const chunks = new Map(
        Object.values(bundle)
          .filter((c) => c.type === 'chunk')
          .map((c) => [c.fileName, c]),
      );
      const seen = new Set<string>();
      const visit = (name: string) => {
        const c = chunks.get(name);
        if (!c || seen.has(name)) return;
        seen.add(name);
        c.imports.forEach(visit);
      };
      for (const c of chunks.values()) if (c.isEntry) visit(c.fileName);
      for (const name of seen) {
        const bad = chunks.get(name)?.moduleIds.find((id) => LAZY_ONLY.some((l) => id.includes(l)));
        if (bad) this.error(`${bad} is in the first page's JS (${name}): import it only from a lazy page`);
      }
      // Customers never download admin code: nothing the user console's
      // entry reaches, statically or lazily, holds a module of src/admin/.
      const user = [...chunks.values()].find((c) => c.isEntry && c.facadeModuleId?.endsWith('/src/main.tsx'));
      const reached = new Set<string>();
      const walk = (name: string) => {
        const c = chunks.get(name);
        if (!c || reached.has(name)) return;
        reached.add(name);
        c.imports.forEach(walk);
        c.dynamicImports.forEach(walk);
      };
      if (user) walk(user.fileName);
      for (const name of reached) {
        const bad = chunks.get(name)?.moduleIds.find((id) => id.includes('/src/admin/'));
        if (bad) this.error(`${bad} (admin code) is reachable from the user console (${name})`);
      }
    },
  };
}

// The hub sends <file>.gz to browsers that accept gzip (docs/console.md):
// write one beside each text asset worth compressing.
function precompress(): Plugin {
  return {
    name: 'hostgate-precompress',
    apply: 'build',
    closeBundle() {
      const dir = resolve(outDir, 'assets');
      for (const name of readdirSync(dir)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const raw = readFileSync(resolve(dir, name));
        if (raw.length < 1024) continue;
        writeFileSync(resolve(dir, name + '.gz'), gzipSync(raw, { level: 9 }));
      }
    },
  };
}

// A hub started by hand (see FOUNDATION.md) answers /v1 during `npm run dev`.
const hub = process.env.HOSTGATE_HUB ?? 'http://127.0.0.1:18091';

export default defineConfig({
  plugins: [react(), lazyOnly(), precompress(), keepGitkeep()],
  build: {
    outDir,
    emptyOutDir: true,
    manifest: true,
    assetsDir: 'assets',
    // No data: URIs: every asset is a hashed file under /assets (simpler CSP).
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1500,
    // Two pages: the user console (index.html) and the admin console
    // (admin.html, served by the hub for /admin and /admin/*).
    rollupOptions: {
      input: {
        index: resolve(import.meta.dirname, 'index.html'),
        admin: resolve(import.meta.dirname, 'admin.html'),
      },
    },
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
