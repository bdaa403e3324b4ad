import type { Static } from '@sinclair/typebox';
import { DEFAULT_EVAL_CATEGORY, isJsonBodyTemplate } from '../../actions/index.ts';
import {
  invalidInput,
  normalizeE164,
  isValidTimeZone,
  type HumanAvailability,
  type InformationExtractorInput,
  type LiveTransferInput,
} from '../../core/index.ts';
import { parseCalendarRef } from '../../runtime/index.ts';
import type { ActionKind } from '../../store/index.ts';
import { QUESTION_KINDS, type QuestionKey, type UpdateActionBody } from './schemas.ts';

// The one place an action body becomes the stored configuration. Parley's own form of each kind
// is stored as given; the vendor's published form is mapped onto it here, once:
// - INFORMATION_EXTRACTOR `{YES_NO|SINGLE_CHOICE|OPEN_QUESTION: {identifier, description?, ...}}`
//   becomes the flat `{identifier, description, kind: yes_no|single_choice|open_question, ...}`
//   (a missing description is derived from the identifier on create);
// - a kind whose published body has no `name` (transfer, SMS, WhatsApp, booking) gets DEFAULT_NAMES;
// - CUSTOM_EVAL `{question: {identifier, text, category?, expected_result?}}` is stored as given,
//   with `category` pass_fail when absent on create; an update merges into the stored question;
// - everything else published (CALCOM, GHL, phone_book_id, human_availability, content_variables...)
//   is typed by the schema and kept as given, for the runtime to read.
// Then the kind's rules are checked on the whole (merged, for an update) configuration.

/**
 * A configuration as built from a body, checked by the kind's rules (checkConfig) and stored as
 * such; the store reads it back typed by its kind.
 */
type Config = Record<string, unknown>;
type Loc = (string | number)[];

/** Names given to actions whose (published) body has none. */
export const DEFAULT_NAMES: Partial<Record<ActionKind, string>> = {
  LIVE_TRANSFER: 'transfer_call',
  SEND_SMS: 'send_sms_after_call',
  INCALL_SMS: 'send_sms',
  INCALL_WHATSAPP: 'send_whatsapp',
  REAL_TIME_BOOKING: 'appointment',
};

const QUESTION_KEYS = Object.keys(QUESTION_KINDS) as QuestionKey[];
const FLAT_EXTRACTOR_FIELDS = ['identifier', 'description', 'kind', 'choices', 'examples'] as const;
/** An all-capitals key inside INFORMATION_EXTRACTOR names a question kind (known or not). */
const QUESTION_KEY = /^[A-Z][A-Z0-9_]*$/;

const isQuestionKey = (key: string): key is QuestionKey => QUESTION_KEYS.some((k) => k === key);

/** The description derived from an identifier: `customer_name` → `customer name`. */
export const describeIdentifier = (identifier: string): string =>
  identifier.replace(/[_.-]+/g, ' ').trim() || identifier;

/** The published nested extractor as the flat configuration; flat bodies are returned as given. */
function normalizeExtractor(given: Partial<InformationExtractorInput>, create: boolean): Config {
  const questionKeys = Object.keys(given).filter((k) => QUESTION_KEY.test(k));
  if (questionKeys.length === 0) return { ...given };
  const where = ['body', 'INFORMATION_EXTRACTOR'];
  const unknown = questionKeys.find((k) => !isQuestionKey(k));
  if (unknown !== undefined) {
    throw invalidInput(
      `body.INFORMATION_EXTRACTOR.${unknown} is not a question kind: use one of ${QUESTION_KEYS.join(', ')}`,
      [...where, unknown],
      'question_kind',
    );
  }
  if (questionKeys.length > 1) {
    throw invalidInput(
      `body.INFORMATION_EXTRACTOR must hold exactly one of ${QUESTION_KEYS.join(', ')} (found ${questionKeys.join(', ')})`,
      where,
      'one_kind',
    );
  }
  const key = QUESTION_KEYS.find((k) => given[k] !== undefined);
  const question = key === undefined ? undefined : given[key];
  if (key === undefined || question === undefined) return { ...given };
  const flat = FLAT_EXTRACTOR_FIELDS.find((f) => given[f] !== undefined);
  if (flat !== undefined) {
    throw invalidInput(
      `body.INFORMATION_EXTRACTOR.${flat} cannot be combined with ${key}: give the question's fields inside ${key}`,
      [...where, flat],
      'not_accepted',
    );
  }
  const { YES_NO: _y, SINGLE_CHOICE: _s, OPEN_QUESTION: _o, ...others } = given;
  const { identifier, description, ...fields } = question;
  const kind = QUESTION_KINDS[key];
  const choices = 'choices' in fields ? fields.choices : undefined;
  if (kind === 'single_choice' && !(Array.isArray(choices) && choices.length > 0)) {
    throw invalidInput(
      `body.INFORMATION_EXTRACTOR.SINGLE_CHOICE.choices is required (at least one choice)`,
      [...where, key, 'choices'],
      'missing',
    );
  }
  const text = description?.trim() ? description : create ? describeIdentifier(identifier) : undefined;
  return {
    ...others,
    // A question replaces the previous one whole: fields of another kind are dropped.
    choices: undefined,
    examples: undefined,
    ...fields,
    identifier,
    ...(text === undefined ? {} : { description: text }),
    kind,
  };
}

function checkAvailability(availability: HumanAvailability): void {
  const where = ['body', 'LIVE_TRANSFER', 'human_availability'];
  if (!isValidTimeZone(availability.timezone)) {
    throw invalidInput(
      `body.LIVE_TRANSFER.human_availability.timezone "${availability.timezone}" is not an IANA time zone`,
      [...where, 'timezone'],
    );
  }
  const seen = new Set<string>();
  availability.schedule.forEach((day, i) => {
    if (seen.has(day.weekday)) {
      throw invalidInput(
        `body.LIVE_TRANSFER.human_availability.schedule[${i}].weekday ${day.weekday} appears twice`,
        [...where, 'schedule', i, 'weekday'],
      );
    }
    seen.add(day.weekday);
    day.interval.forEach((interval, j) => {
      if (interval.to <= interval.from) {
        throw invalidInput(
          `body.LIVE_TRANSFER.human_availability.schedule[${i}].interval[${j}].to must be after from`,
          [...where, 'schedule', i, 'interval', j, 'to'],
        );
      }
    });
  });
}

/** One kind's part of a create or update body, typed by its schema. */
export type KindBody =
  | { kind: 'INFORMATION_EXTRACTOR'; config: Partial<InformationExtractorInput> }
  | { kind: 'LIVE_TRANSFER'; config: Partial<Static<typeof LiveTransferInput>> }
  | { kind: 'CUSTOM_EVAL'; config: NonNullable<UpdateActionBody['CUSTOM_EVAL']> }
  | { kind: Exclude<ActionKind, 'INFORMATION_EXTRACTOR' | 'LIVE_TRANSFER' | 'CUSTOM_EVAL'>; config: object };

/** The body's part for `kind`, when the body has that key. */
export function kindBody(body: UpdateActionBody, kind: ActionKind): KindBody | undefined {
  switch (kind) {
    case 'INFORMATION_EXTRACTOR':
      return body.INFORMATION_EXTRACTOR && { kind, config: body.INFORMATION_EXTRACTOR };
    case 'LIVE_TRANSFER':
      return body.LIVE_TRANSFER && { kind, config: body.LIVE_TRANSFER };
    case 'CUSTOM_EVAL':
      return body.CUSTOM_EVAL && { kind, config: body.CUSTOM_EVAL };
    default: {
      const config = body[kind];
      return config && { kind, config };
    }
  }
}

/**
 * A kind's body as (part of) the stored configuration: the published forms mapped onto Parley's,
 * default names on create. On update the result is merged into the stored configuration
 * (`mergeConfig`); a key whose value is `undefined` is removed.
 */
export function normalizeConfig(given: KindBody, mode: 'create' | 'update'): Config {
  const create = mode === 'create';
  if (given.kind === 'INFORMATION_EXTRACTOR') return normalizeExtractor(given.config, create);
  if (given.kind === 'CUSTOM_EVAL') {
    const { question, ...others } = given.config;
    if (question === undefined) return { ...others };
    return {
      ...others,
      question: create ? { category: DEFAULT_EVAL_CATEGORY, ...question } : { ...question },
    };
  }
  if (given.kind === 'LIVE_TRANSFER' && given.config.human_availability) {
    checkAvailability(given.config.human_availability);
  }
  const config: Config = { ...given.config };
  const fallback = DEFAULT_NAMES[given.kind];
  return create && config.name === undefined && fallback !== undefined
    ? { ...config, name: fallback }
    : config;
}

/** Keys whose object an update merges into the stored one (instead of replacing it). */
const MERGED_OBJECTS: Partial<Record<ActionKind, readonly string[]>> = { CUSTOM_EVAL: ['question'] };

const isPlainObject = (value: unknown): value is Config =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The stored configuration with an update's fields merged in (undefined values remove keys);
 * `kind`'s nested objects (a CUSTOM_EVAL's `question`) are merged one level down.
 */
export function mergeConfig(current: Config, patch: Config, kind?: ActionKind): Config {
  const merged: Config = { ...current, ...patch };
  for (const key of (kind && MERGED_OBJECTS[kind]) ?? []) {
    const [before, after] = [current[key], patch[key]];
    if (isPlainObject(before) && isPlainObject(after)) merged[key] = { ...before, ...after };
  }
  for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key];
  return merged;
}

function missing(kind: ActionKind, field: string, also = ''): never {
  throw invalidInput(`body.${kind}.${field} is required${also}`, ['body', kind, field], 'missing');
}

const present = (value: unknown) => value !== undefined && value !== null && value !== '';

/** Rules a kind's configuration must keep beyond its schema; checked on the (merged) whole. */
export function checkConfig(kind: ActionKind, c: Config): void {
  const loc = (field: string): Loc => ['body', kind, field];
  switch (kind) {
    case 'INFORMATION_EXTRACTOR':
      for (const field of ['identifier', 'description', 'kind'] as const) {
        if (!present(c[field]))
          missing(
            kind,
            field,
            field === 'identifier' ? ' (or one of YES_NO, SINGLE_CHOICE, OPEN_QUESTION)' : '',
          );
      }
      if (c.kind === 'single_choice' && !(Array.isArray(c.choices) && c.choices.length > 0)) {
        missing(kind, 'choices', ' when kind is single_choice');
      }
      return;
    case 'LIVE_TRANSFER': {
      if (typeof c.phone !== 'string') {
        if (present(c.phone_book_id)) return;
        missing(kind, 'phone', ' (or phone_book_id)');
      }
      if (!c.phone.startsWith('sip:') && !normalizeE164(c.phone)) {
        throw invalidInput(
          `body.${kind}.phone is not a valid phone number with a country code (or a sip: URI)`,
          loc('phone'),
          'phone_number',
        );
      }
      return;
    }
    case 'INCALL_SMS':
    case 'INCALL_WHATSAPP':
      if (c.message_body === undefined && c.content_sid === undefined) {
        missing(kind, 'message_body', ` (or body.${kind}.content_sid)`);
      }
      return;
    case 'REAL_TIME_BOOKING': {
      if (!isValidTimeZone(String(c.timezone))) {
        throw invalidInput(
          `body.${kind}.timezone "${String(c.timezone)}" is not an IANA time zone`,
          loc('timezone'),
        );
      }
      const calendar = parseCalendarRef(c.calendar);
      if (!calendar.ok) {
        throw invalidInput(`body.${kind}.${calendar.message}`, ['body', kind, ...calendar.field.split('.')]);
      }
      return;
    }
    case 'CUSTOM_ACTION': {
      checkUrl(c.url, [kind, 'url']);
      const body = c.json_body_stringified;
      if (typeof body === 'string' && body.trim() !== '' && !isJsonBodyTemplate(body)) {
        throw invalidInput(
          `body.${kind}.json_body_stringified must be a JSON document (placeholders such as {name} or <name> count as values)`,
          loc('json_body_stringified'),
          'json',
        );
      }
      return;
    }
    case 'CUSTOM_EVAL': {
      const question = c.question;
      if (!isPlainObject(question)) missing(kind, 'question');
      for (const field of ['identifier', 'text'] as const) {
        if (typeof question[field] !== 'string' || question[field].trim() === '') {
          throw invalidInput(
            `body.${kind}.question.${field} is required`,
            ['body', kind, 'question', field],
            'missing',
          );
        }
      }
      return;
    }
    case 'SEND_SMS':
      return;
  }
}

function checkUrl(value: unknown, loc: Loc): void {
  const where = `body.${loc.join('.')}`;
  let url: URL | null = null;
  try {
    url = new URL(String(value));
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw invalidInput(`${where} must be an absolute http or https URL`, ['body', ...loc], 'url');
  }
}

/**
 * The stored name: the kind's `name`, an extractor's `identifier`, an evaluation's question
 * `identifier`; never altered.
 */
export const nameOf = (kind: ActionKind, c: Config): string => {
  const name =
    kind === 'INFORMATION_EXTRACTOR'
      ? c.identifier
      : kind === 'CUSTOM_EVAL' && isPlainObject(c.question)
        ? c.question.identifier
        : c.name;
  return typeof name === 'string' ? name : '';
};
