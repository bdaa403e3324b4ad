import type { ToolSpec } from '../types.ts';
import { instructionToQuestion, whQuestion, withOptions, type Question } from './questions.ts';
import { capitalize, swapPerson } from './text.ts';

// Reading the tools offered: `end_call` (with its enum of reasons) and extraction-like tools, i.e.
// any other tool with exactly one string / number / boolean / enum parameter, whose description
// says what to ask for. Tools that plainly do something else (transfer, send, end) are left alone.

export const END_CALL = 'end_call';
export const GOODBYE_REASON = 'user said goodbye';
export const COMPLETE_REASON = 'conversation complete';

export interface EndCallTool {
  name: string;
  /** The argument name of the reason (normally `reason`). */
  param: string;
  /** Every allowed reason, exactly as in the enum; empty when the schema has no enum. */
  reasons: string[];
  /** The agent's own reasons (the enum minus the two fixed ones). */
  custom: string[];
}

export type ValueKind = 'email' | 'phone' | 'number' | 'integer' | 'boolean' | 'enum' | 'name' | 'text';

export interface Extractor {
  name: string;
  param: string;
  kind: ValueKind;
  choices?: string[];
  question: Question;
}

export interface ToolSet {
  endCall?: EndCallTool;
  extractors: Extractor[];
}

function schemaProperties(tool: ToolSpec): [string, Record<string, unknown>][] {
  const properties = tool.parameters.properties;
  if (!properties || typeof properties !== 'object') return [];
  return Object.entries(properties as Record<string, unknown>).filter(
    (entry): entry is [string, Record<string, unknown>] => typeof entry[1] === 'object' && entry[1] !== null,
  );
}

function stringEnum(schema: Record<string, unknown>): string[] | undefined {
  const values = schema.enum;
  if (!Array.isArray(values)) return undefined;
  const strings = values.filter((v): v is string => typeof v === 'string');
  return strings.length > 0 ? strings : undefined;
}

function readEndCall(tool: ToolSpec): EndCallTool {
  const [param, schema] = schemaProperties(tool)[0] ?? ['reason', {}];
  const reasons = stringEnum(schema) ?? [];
  return {
    name: tool.name,
    param,
    reasons,
    custom: reasons.filter((r) => r !== GOODBYE_REASON && r !== COMPLETE_REASON),
  };
}

function kindOf(name: string, description: string, schema: Record<string, unknown>): ValueKind {
  const type = schema.type;
  if (stringEnum(schema)) return 'enum';
  if (type === 'boolean') return 'boolean';
  if (type === 'integer') return 'integer';
  if (type === 'number') return 'number';
  const about =
    `${name} ${description} ${typeof schema.description === 'string' ? schema.description : ''}`.toLowerCase();
  if (schema.format === 'email' || /e-?mail/.test(about)) return 'email';
  if (/\b(?:phone|mobile|telephone|cell)\b|phone/.test(about)) return 'phone';
  if (
    /\bname\b|_name\b|name_/.test(about) &&
    !/\b(?:company|business|street|product|file|user ?name)\b/.test(about)
  )
    return 'name';
  return 'text';
}

/** The words a tool's name stands for: `extract_email_address` → "email address". */
function nameTopic(name: string): string {
  return name
    .replace(/^(?:extract|collect|get|record|capture|save|store|ask|ask_for|set|update|note|log)_+/i, '')
    .replace(/[_-]+/g, ' ')
    .trim();
}

function questionFor(
  tool: ToolSpec,
  param: string,
  kind: ValueKind,
  schema: Record<string, unknown>,
): Question {
  const choices = stringEnum(schema);
  const firstSentence = tool.description.split(/(?<=[.!?])\s/)[0] ?? '';
  const fromDescription = /^(?:what|when|where|which|how|who)\b/i.test(firstSentence)
    ? {
        text: whQuestion(swapPerson(firstSentence).replace(/\bthe household\b/i, 'your household')),
        kind: 'open' as const,
      }
    : instructionToQuestion(firstSentence);
  let question: Question;
  if (fromDescription) question = fromDescription;
  else {
    const described = typeof schema.description === 'string' ? schema.description.trim() : '';
    const noun = /^(?:the|a|an|their|your|the caller's|the user's)\s+[a-z]/i.test(described)
      ? swapPerson(described).replace(/^(?:the|a|an)\s+/i, 'your ')
      : `your ${nameTopic(tool.name) || param}`;
    const topic = noun.replace(/[.!?]+$/, '');
    question =
      kind === 'boolean'
        ? { text: `Could you tell me about ${topic}?`, kind: 'yesno', topic }
        : { text: `Could I have ${topic}?`, kind: 'open', topic };
  }
  if (kind === 'boolean') question = { ...question, kind: 'yesno' };
  if (kind === 'enum' && choices) {
    const named = question.choices && question.choices.every((c) => choices.includes(c));
    question = {
      ...question,
      kind: 'choice',
      choices,
      text: named ? question.text : withOptions(question.text, choices),
    };
  }
  return { ...question, text: capitalize(question.text) };
}

const ACTION_TOOL =
  /(?:^|_)(?:transfer|forward|end|hang|send|call|dial|book|cancel|refund|delete|escalate)(?:_|$)/i;

function readExtractor(tool: ToolSpec): Extractor | undefined {
  if (ACTION_TOOL.test(tool.name) && !/^(?:extract|collect|record|capture|get|ask)_/i.test(tool.name))
    return undefined;
  const properties = schemaProperties(tool);
  if (properties.length !== 1) return undefined;
  const [param, schema] = properties[0] ?? ['value', {}];
  const type = schema.type;
  if (
    type !== 'string' &&
    type !== 'boolean' &&
    type !== 'number' &&
    type !== 'integer' &&
    !stringEnum(schema)
  )
    return undefined;
  const kind = kindOf(tool.name, tool.description, schema);
  return {
    name: tool.name,
    param,
    kind,
    choices: stringEnum(schema),
    question: questionFor(tool, param, kind, schema),
  };
}

export function readTools(tools: readonly ToolSpec[] | undefined): ToolSet {
  const set: ToolSet = { extractors: [] };
  for (const tool of tools ?? []) {
    if (tool.name === END_CALL) set.endCall = readEndCall(tool);
    else {
      const extractor = readExtractor(tool);
      if (extractor) set.extractors.push(extractor);
    }
  }
  return set;
}

/** The enum value to send for a fixed reason (the fixed text itself when the enum lacks it). */
export function fixedReason(endCall: EndCallTool, reason: string): string {
  return endCall.reasons.length === 0 || endCall.reasons.includes(reason)
    ? reason
    : (endCall.reasons[0] ?? reason);
}
