#!/usr/bin/env node
// Entry point of the `parley` command. The sources are TypeScript run through tsx's loader, so
// `npm ci && npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
