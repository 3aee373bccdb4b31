#!/usr/bin/env node
// The package's bin, `wallet-rpc-pay-sandbox` (also reached as `wallet-rpc pay-sandbox`).
import { runPaySandboxCommand, UsageError } from './paySandbox.js'

try {
  process.exitCode = await runPaySandboxCommand(process.argv.slice(2))
} catch (error) {
  if (!(error instanceof UsageError)) throw error
  process.stderr.write(`wallet-rpc-pay-sandbox: ${error.message}\n`)
  process.exitCode = 2
}
