// ESLint flat config: the recommended JavaScript and TypeScript rules, tuned
// where the code base has a reason (docs/developing.md, "Lint and format").
// Formatting is Prettier's (.prettierrc.json), checked by `npm run lint`.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tmp/**',
      'coverage/**',
      'fixtures/*',
      '!fixtures/scripts',
      'protos/**',
      '**/*.d.ts',
      '**/*.d.cts',
      '**/*.d.mts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      // `_`-prefixed names are deliberate: a destructured key left out, an unused parameter of a callback shape.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'none',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Generated validators and codecs exist so that nothing compiles code at run time (Workers forbid it).
      'no-new-func': 'error',
      'no-eval': 'error',
    },
  },
  {
    // Tests and benchmarks poke at values whose shape the test itself decides.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // CommonJS files: the lazy loaders of src/ and the scripts that run under `require`.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The /__mcp/ page runs in the browser.
    files: ['page/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The playground imports `?mcp` modules, typed by the package's client declarations.
    files: ['playground/**/*.ts'],
    rules: { '@typescript-eslint/triple-slash-reference': 'off' },
  },
)
