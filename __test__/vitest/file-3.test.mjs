// One of six files vitest runs in its thread pool (vitest.config.mjs); the checks are in cases.mjs.
import { cases } from './cases.mjs'

cases(3)
