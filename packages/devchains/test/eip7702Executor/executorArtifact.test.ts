import { expect, it } from 'vitest'
import { artifactText, committedArtifactText, compileExecutor } from './compileExecutor.js'

it('the committed EIP-7702 executor is OpenZeppelin 5.x compiled by the installed solc, byte for byte', () => {
  expect(committedArtifactText()).toBe(artifactText(compileExecutor()))
}, 60_000)
