import { createRequire } from 'node:module';
import type { Agent as UndiciAgent } from 'undici';

// undici's index loads all it offers (fetch, WebSocket, caches, mocks, proxies): CPU and memory
// at every start of `fanlake extract`, which uses only the Agent. The Agent's
// own module loads the dispatcher alone. undici declares no `exports`, so the path is open to
// us; test/extract/http/undici-agent.test.ts checks that it is still the class undici's index
// exports, so an upgrade that moves it fails there, not in an extract.
const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
