import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The admin perms test reads ../docs/admin-roles.md (?raw).
  server: { fs: { allow: ['..'] } },
  test: {
    environment: 'jsdom',
    setupFiles: ['src/test/setup.ts'],
    // antd component tests take a second or more on a busy 2-core machine.
    testTimeout: 20_000,
    include: ['src/**/*.test.{ts,tsx}', 'scripts/**/*.test.mjs'],
  },
});
