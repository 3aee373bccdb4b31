import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration suites start real chain software on 127.0.0.1; two workers match the 2-core CI machine.
    maxWorkers: 2,
    setupFiles: ['test/setup/fastCheck.ts'],
  },
})
