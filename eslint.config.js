// One lint config for the whole package. Import rules keep the module graph as DESIGN.md section 2
// draws it: a module imports only the modules its row lists, and those only through their
// index.ts. Our departures from that table are written in docs/architecture.md ("Module imports").
import { readdirSync } from 'node:fs';
import { URL } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** DESIGN.md section 2's "may import" column, as amended in docs/architecture.md. */
const MAY_IMPORT = {
  core: [],
  store: ['core'],
  media: ['core'],
  providers: ['core', 'media'],
  actions: ['core'],
  knowledge: ['core', 'store'],
  // The rules of changes to agents (and their numbers, actions, knowledge base) and to the
  // workspace (settings, keys, subaccounts), each in one transaction (docs/architecture.md).
  agents: ['core', 'store'],
  workspace: ['core', 'store'],
  conversation: ['core', 'providers', 'actions', 'knowledge'],
  runtime: ['core', 'store', 'providers', 'actions', 'knowledge', 'conversation'],
  voice: ['core', 'media', 'providers', 'conversation'],
  telephony: ['core', 'media'],
  webhooks: ['core', 'store'],
  speech: ['core', 'media', 'providers'],
  calls: ['core', 'store', 'telephony', 'voice', 'runtime', 'webhooks', 'speech'],
  dialer: ['core', 'store', 'calls'],
  simulation: ['core', 'store', 'conversation', 'providers', 'runtime', 'actions'],
  chat: ['core', 'store', 'conversation', 'providers', 'runtime'],
  api: [
    'core',
    'chat',
    'store',
    'media',
    'providers',
    'conversation',
    'actions',
    'knowledge',
    'runtime',
    'voice',
    'telephony',
    'calls',
    'dialer',
    'webhooks',
    'simulation',
    'speech',
    'agents',
    'workspace',
  ],
};

const modules = Object.keys(MAY_IMPORT);

// A new folder under src/ must get its row here before it lints.
const unlisted = readdirSync(new URL('./src/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !modules.includes(entry.name))
  .map((entry) => `src/${entry.name}`);
if (unlisted.length > 0) {
  throw new Error(`eslint.config.js: add ${unlisted.join(', ')} to MAY_IMPORT (DESIGN.md section 2)`);
}

const UP = '\\.\\./';
const any = (names) => `(${names.join('|')})`;
const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
/** A module's public entries: its index.ts, and for tests also its testing/index.ts (fakes). */
const entryOf = (test) => (test ? '(testing/)?index\\.ts' : 'index\\.ts');

/**
 * The import patterns refused in a file `depth` folders below src/<module>/. Such a file reaches
 * src/ with exactly `depth` `../`, so a folder inside a module that shares another module's name
 * (src/api/actions/) is not mistaken for it.
 *
 * Tests beside the code (*.test.ts) and the module's testing/ folder follow the module's row too,
 * and may also use the testing/index.ts of the modules it lists and the fake servers under test/:
 * a unit test that needs modules above its own is a cross-module test, and belongs in test/.
 */
function moduleImportRules(module, depth, test) {
  const up = UP.repeat(depth);
  const allowed = MAY_IMPORT[module];
  const forbidden = modules.filter((m) => m !== module && !allowed.includes(m));
  const patterns = [];
  if (forbidden.length > 0) {
    patterns.push({
      regex: `^${up}${any(forbidden)}(/|$)`,
      message: `src/${module} may import ${allowed.length ? `only ${allowed.join(', ')}` : 'no other module'} (DESIGN.md section 2, docs/architecture.md).`,
    });
  }
  if (allowed.length > 0) {
    patterns.push({
      regex: `^${up}${any(allowed)}/(?!${entryOf(test)}$)`,
      message: `Import another module only through its index.ts${test ? ' or testing/index.ts' : ''}.`,
    });
  }
  patterns.push({
    regex: `^${up}(app|main)\\.ts$`,
    message: 'Only cli/ and tests import the composition root (src/app.ts) and src/main.ts.',
  });
  patterns.push({
    regex: `^${up}${UP}${test ? '(?!test/)' : ''}`,
    message: test
      ? 'Tests and testing/ beside the code reach outside src/ only for the fakes under test/.'
      : 'Production code imports nothing outside src/.',
  });
  return restrict(patterns);
}

/** Files outside the modules that may use any module's public entries (tests, benchmarks). */
const anyPublicEntry = (what) =>
  restrict([
    {
      regex: `^(${UP})+src/(?!(app\\.ts|[a-z-]+/(testing/)?index\\.ts)$)`,
      message: `${what} import a module only through its index.ts or testing/index.ts, or src/app.ts.`,
    },
  ]);

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**', '.bench-tmp/**', 'console/dist/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...modules.flatMap((module) =>
    [1, 2, 3, 4, 5].flatMap((depth) => {
      const files = `src/${module}/${'*/'.repeat(depth - 1)}*.ts`;
      // The module's testing/ folder (fakes, contract suites, harnesses) is test support.
      const support = depth >= 2 ? [`src/${module}/testing/${'*/'.repeat(depth - 2)}*.ts`] : [];
      return [
        {
          files: [files],
          ignores: ['**/*.test.ts', `src/${module}/testing/**`],
          rules: moduleImportRules(module, depth, false),
        },
        {
          files: [files.replace(/\.ts$/, '.test.ts'), ...support],
          rules: moduleImportRules(module, depth, true),
        },
      ];
    }),
  ),
  // The composition root may import every module, through its index.ts.
  {
    files: ['src/app.ts'],
    rules: restrict([
      {
        regex: `^\\./${any(modules)}/(?!index\\.ts$)`,
        message: 'Import a module only through its index.ts.',
      },
    ]),
  },
  // `parley serve` belongs with the CLI: it starts the app and reads the configuration.
  {
    files: ['src/main.ts'],
    rules: restrict([
      {
        regex: '^\\./(?!(app\\.ts|core/index\\.ts)$)',
        message: 'src/main.ts imports only src/app.ts and core.',
      },
    ]),
  },
  // The CLI drives the app: src/app.ts, src/main.ts (serve) and core (configuration, errors).
  {
    files: ['cli/**/*.ts'],
    rules: restrict([
      {
        regex: '^\\.\\./src/(?!(app\\.ts|main\\.ts|core/index\\.ts)$)',
        message: 'cli/ imports only src/app.ts, src/main.ts and core/index.ts (docs/architecture.md).',
      },
      { regex: '^\\.\\./(bench|test|bin)/', message: 'cli/ imports nothing from bench/, test/ or bin/.' },
      { regex: '^\\.\\./sdk/(?!index\\.ts$)', message: 'cli/ uses the SDK through sdk/index.ts.' },
    ]),
  },
  // The console runs in the browser and knows the server only through the SDK.
  {
    files: ['console/src/**/*.ts', 'console/src/**/*.tsx'],
    rules: restrict([
      {
        regex: '^(\\.\\./)+(?!sdk/index\\.ts$)(src|cli|mcp|sdk|test|bench|bin)/',
        message: 'console/ uses the server only through the SDK (sdk/index.ts).',
      },
    ]),
  },
  {
    files: ['console/build.mjs'],
    languageOptions: { globals: { process: 'readonly', Buffer: 'readonly' } },
  },
  // The SDK is a client of the API: it imports nothing of the server (sdk/index.ts is its entry).
  // Its generator reads the OpenAPI document off a throwaway app.
  {
    files: ['sdk/**/*.ts'],
    ignores: ['sdk/generate.ts'],
    rules: restrict([
      { regex: '^\\.\\./', message: 'sdk/ imports nothing outside sdk/: it is a client of the API.' },
    ]),
  },
  {
    files: ['sdk/generate.ts'],
    rules: restrict([
      {
        regex: '^\\.\\./(?!src/(app\\.ts|core/index\\.ts)$)',
        message: 'sdk/generate.ts imports only src/app.ts and core/index.ts.',
      },
    ]),
  },
  // Tests and their helpers (fake servers, the API harness) may use any module's public entries
  // and the composition root: they are leaves of the graph, so no direction applies. cli/ has no
  // index.ts; its tests import its files.
  { files: ['test/**/*.ts'], rules: anyPublicEntry('Tests') },
  { files: ['bench/**/*.ts'], rules: anyPublicEntry('Benchmarks') },
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: restrict([{ regex: '^\\.\\./(?!cli/)', message: 'bin/ only starts the CLI (cli/).' }]),
  },
  // Examples are plain Node clients of the API: they import nothing of Parley.
  {
    files: ['examples/**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'Buffer', 'fetch', 'setInterval', 'clearInterval', 'setTimeout'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
    rules: restrict([{ regex: '^\\.', message: "Examples use the API, not Parley's sources." }]),
  },
);
