/** Placeholder until its issue lands: says so and fails, so nothing mistakes it for a pass. */
export async function runDemoCommand(_argv: string[]): Promise<number> {
  process.stderr.write('wallet-rpc: this command is not built yet\n')
  return 2
}
