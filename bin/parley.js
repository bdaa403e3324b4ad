#!/usr/bin/env node
// Entry point of the `parley` command, for development and the tests: the sources are TypeScript
// run through tsx's loader, so a change needs no build. `npm start` runs the build (bin/start.js).
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
