// Whether CMU PocketSphinx (Debian's `pocketsphinx` 0.8+5prealpha) and its US English model
// (`pocketsphinx-en-us`) are installed. The composition root asks before choosing the offline STT,
// so Parley starts without them; the answer is cached per binary and model folder.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { SpeechError } from './types.ts';

/** The one command that installs what the adapter needs (Debian/Ubuntu). */
export const POCKETSPHINX_INSTALL = 'apt-get install pocketsphinx pocketsphinx-en-us';

/** The decoder binary: batch mode reads an utterance list, which gives one result line per utterance. */
export const POCKETSPHINX_BINARY = 'pocketsphinx_batch';

/** Where `pocketsphinx-en-us` puts the model. */
export const POCKETSPHINX_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

export interface PocketSphinxInstall {
  /** Binary name (looked up on PATH) or path; default POCKETSPHINX_BINARY. */
  binary?: string;
  /** The model folder; default POCKETSPHINX_MODEL_DIR. */
  modelDir?: string;
}

/** The model's parts, as the decoder's -hmm, -lm and -dict flags want them. */
export function pocketSphinxModel(modelDir = POCKETSPHINX_MODEL_DIR) {
  return {
    hmm: join(modelDir, 'en-us'),
    lm: join(modelDir, 'en-us.lm.bin'),
    dict: join(modelDir, 'cmudict-en-us.dict'),
  };
}

export type PocketSphinxCheck = { ok: true; binaryPath: string } | { ok: false; missing: string[] };

const exists = (path: string, mode: number) =>
  access(path, mode).then(
    () => true,
    () => false,
  );

async function findBinary(binary: string): Promise<string | null> {
  if (binary.includes('/')) return (await exists(binary, constants.X_OK)) ? binary : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, binary);
    if (await exists(candidate, constants.X_OK)) return candidate;
  }
  return null;
}

async function check(binary: string, modelDir: string): Promise<PocketSphinxCheck> {
  const model = pocketSphinxModel(modelDir);
  const [binaryPath, hmm, lm, dict] = await Promise.all([
    findBinary(binary),
    exists(join(model.hmm, 'mdef'), constants.R_OK),
    exists(model.lm, constants.R_OK),
    exists(model.dict, constants.R_OK),
  ]);
  const missing: string[] = [];
  if (!binaryPath) missing.push(`the ${binary} binary (not on PATH)`);
  if (!hmm) missing.push(`the acoustic model ${model.hmm}`);
  if (!lm) missing.push(`the language model ${model.lm}`);
  if (!dict) missing.push(`the dictionary ${model.dict}`);
  return binaryPath && missing.length === 0 ? { ok: true, binaryPath } : { ok: false, missing };
}

const checks = new Map<string, Promise<PocketSphinxCheck>>();

/** What is installed and what is missing; looked up once per binary and model folder. */
export function checkPocketSphinx(install: PocketSphinxInstall = {}): Promise<PocketSphinxCheck> {
  const binary = install.binary ?? POCKETSPHINX_BINARY;
  const modelDir = install.modelDir ?? POCKETSPHINX_MODEL_DIR;
  const key = `${binary}\0${modelDir}`;
  let found = checks.get(key);
  if (!found) {
    found = check(binary, modelDir);
    checks.set(key, found);
  }
  return found;
}

/** Whether the PocketSphinx binary and the en-us model are installed (cached). */
export async function pocketSphinxAvailable(install: PocketSphinxInstall = {}): Promise<boolean> {
  return (await checkPocketSphinx(install)).ok;
}

/** The path of the binary, or SpeechError('stt_unavailable') naming what is missing and how to install it. */
export async function requirePocketSphinx(install: PocketSphinxInstall = {}): Promise<string> {
  const found = await checkPocketSphinx(install);
  if (found.ok) return found.binaryPath;
  throw new SpeechError(
    `PocketSphinx speech recognition is not installed: missing ${found.missing.join(', ')}. ` +
      `Install it with: ${POCKETSPHINX_INSTALL}`,
    'stt_unavailable',
    false,
  );
}
