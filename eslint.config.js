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
  { ignores: ['node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...modules.map((m) => {
    const others = modules.filter((o) => o !== m).join('|');
    return {
      files: [`src/${m}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: `^(\\.\\./)+(${others})/(?!index\\.ts$)`,
                message: 'Import another module only through its index.ts.',
              },
            ],
          },
        ],
      },
    };
  }),
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
