// One lint config for the whole package. Import-boundary rules keep modules talking only through
// each other's index.ts (DESIGN.md section 2).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const modules = [
  'core',
  'store',
  'api',
  'media',
  'providers',
  'conversation',
  'actions',
  'knowledge',
  'voice',
  'telephony',
  'calls',
  'dialer',
  'webhooks',
  'chat',
  'simulation',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**', '.bench-tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Production code reaches another module only through its index.ts; tests may also use its
  // testing/index.ts (fakes and test targets). A file at depth d under src/<module>/ reaches the
  // src/ level with exactly d `../`, so the pattern is built per depth (a folder inside a module
  // that shares another module's name, such as src/api/actions/, is not mistaken for it).
  ...modules.flatMap((m) => {
    const others = modules.filter((o) => o !== m).join('|');
    return [1, 2, 3, 4].flatMap((depth) => {
      const files = `src/${m}/${'*/'.repeat(depth - 1)}*.ts`;
      const up = '\\.\\./'.repeat(depth);
      const rule = (allowed, message) => ({
        'no-restricted-imports': [
          'error',
          { patterns: [{ regex: `^${up}(${others})/(?!${allowed}$)`, message }] },
        ],
      });
      return [
        {
          files: [files],
          ignores: ['**/*.test.ts'],
          rules: rule('index\\.ts', 'Import another module only through its index.ts.'),
        },
        {
          files: [files.replace(/\.ts$/, '.test.ts')],
          rules: rule(
            '(testing/)?index\\.ts',
            'Import another module only through its index.ts or testing/index.ts.',
          ),
        },
      ];
    });
  }),
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
