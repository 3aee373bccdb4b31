import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const packages = fileURLToPath(new URL('./packages/', import.meta.url))

export default defineConfig({
  resolve: {
    // Tests run the workspaces' sources: one copy of each module (one ProviderError class), no build needed.
    alias: [
      { find: /^wallet-rpc$/, replacement: `${packages}wallet-rpc/src/index.ts` },
      { find: /^wallet-rpc\/pay\/sandbox$/, replacement: `${packages}pay-sandbox/src/index.ts` },
      { find: /^wallet-rpc\/([a-z0-9]+)$/, replacement: `${packages}wallet-rpc/src/$1/index.ts` },
      { find: /^@wallet-rpc\/pay-sandbox$/, replacement: `${packages}pay-sandbox/src/index.ts` },
      {
        find: /^@wallet-rpc\/pay-sandbox\/cli$/,
        replacement: `${packages}pay-sandbox/src/cli/paySandbox.ts`,
      },
      {
        find: /^@wallet-rpc\/devchains\/bitcoinRegtest$/,
        replacement: `${packages}devchains/src/bitcoinRegtest/index.ts`,
      },
      { find: /^@wallet-rpc\/devchains\/(.+)$/, replacement: `${packages}devchains/src/$1.ts` },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration suites start real chain software on 127.0.0.1; two workers match the 2-core CI machine.
    maxWorkers: 2,
    setupFiles: ['packages/wallet-rpc/test/setup/fastCheck.ts'],
  },
})
