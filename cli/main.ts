import { parseArgs } from 'node:util';
import { ConfigError } from '../src/core/index.ts';
import { runCommand, UsageError, USAGE } from './commands.ts';

// `parley <command>`: the operator's entry point. Output meant for scripts is JSON on stdout;
// errors go to stderr with exit code 1 (2 for usage errors).

const { positionals, values } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  strict: false,
  options: { help: { type: 'boolean', short: 'h' } },
});

if (values.help || positionals.length === 0) {
  process.stdout.write(USAGE);
} else {
  try {
    await runCommand(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`parley: ${err.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError) {
      process.stderr.write(`parley: configuration: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`parley: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  }
}
