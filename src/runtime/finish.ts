import {
  EVALUATION_TOOL,
  evaluationPrompt,
  evaluationToolSpec,
  evaluationValue,
  extractorToolName,
  heuristicVerdict,
  parseCustomEvalQuestion,
  parseVerdict,
  sendAfterConversation,
  startEvaluation,
  type CustomEvalQuestion,
  type EvalVerdict,
} from '../actions/index.ts';
import { LLMError, collectChat, type CollectedChat, type LLM, type ToolCall } from '../providers/index.ts';
import { noMessaging, type ActionEffects, type ConversationActions } from './actions.ts';

// What runs once a conversation is over (a call ended, a chat completed):
// 1. the final extraction pass: the information extractors still without a value get one more
//    chance over the whole transcript (one model call offering just their tools). It runs with a
//    configured model; the builtin extracts as each turn comes (its rules read every user turn),
//    so over the same transcript a pass would find nothing new, and it is skipped;
// 2. SEND_SMS actions: sent to the lead. With a configured model, an action whose `instructions`
//    say when to send is sent only if the model, reading the transcript, says so; with the
//    builtin (no judgement available) it is sent;
// 3. CUSTOM_EVAL actions: each question is answered over the transcript, with one model call per
//    question (a required tool call, its answer read robustly), or on the builtin model by the
//    deterministic heuristic of src/actions/evaluation.ts. Each answer is a run on the timeline.
// Failures are recorded on the action timeline; nothing here throws for a model or a provider.

export interface FinishOptions {
  actions: ConversationActions;
  effects: ActionEffects;
  /** "bot: …\nhuman: …" */
  transcript: string;
  llm: LLM;
  model?: string;
  signal?: AbortSignal;
}

const isBuiltin = (llm: LLM) => llm.name === 'builtin';

export async function finishConversation(options: FinishOptions): Promise<void> {
  await finalExtraction(options);
  await sendAfterMessages(options);
  await runEvaluations(options);
}

/** The extractors not collected during the conversation, each with its tool name. */
function missingExtractors(actions: ConversationActions) {
  return actions.actions
    .flatMap((a) => (a.kind === 'INFORMATION_EXTRACTOR' ? [a.config] : []))
    .filter((c) => actions.collected.get(c.identifier)?.collected !== true)
    .map((c) => ({ config: c, tool: actions.tools.get(extractorToolName(c.identifier)) }))
    .filter((e) => e.tool !== undefined);
}

export async function finalExtraction(options: FinishOptions): Promise<void> {
  if (isBuiltin(options.llm) || options.transcript.trim() === '') return;
  const missing = missingExtractors(options.actions);
  if (missing.length === 0) return;
  let calls: ToolCall[];
  try {
    const result = await collectChat(
      options.llm.chat({
        ...(options.model ? { model: options.model } : {}),
        messages: [
          {
            role: 'system',
            content:
              'The conversation below is over. For each tool, call it once with the value the ' +
              'conversation clearly states. Do not guess: call nothing for a value it does not state.',
          },
          { role: 'user', content: options.transcript },
        ],
        tools: missing.map((m) => m.tool!.spec),
        toolChoice: 'auto',
        temperature: 0,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
    calls = result.toolCalls;
  } catch {
    return; // the values stay uncollected; the pass is a best effort over a finished call
  }
  const names = new Set(missing.map((m) => m.tool!.spec.name));
  for (const call of calls) {
    if (!names.has(call.name)) continue;
    names.delete(call.name); // one value per extractor
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(call.arguments) as Record<string, unknown>;
    } catch {
      args = {};
    }
    await options.actions.tools
      .get(call.name)
      ?.execute(args, options.signal ? { signal: options.signal } : {});
  }
}

async function shouldSend(options: FinishOptions, instructions: string): Promise<boolean> {
  if (instructions.trim() === '' || isBuiltin(options.llm)) return true;
  try {
    const result = await collectChat(
      options.llm.chat({
        ...(options.model ? { model: options.model } : {}),
        messages: [
          {
            role: 'system',
            content:
              'Decide whether a text message should be sent to the person after this conversation. ' +
              `The rule for sending it: ${instructions}\nAnswer with the tool.`,
          },
          { role: 'user', content: options.transcript },
        ],
        tools: [
          {
            name: 'decide',
            description: 'Whether to send the message.',
            parameters: {
              type: 'object',
              properties: { send: { type: 'boolean' } },
              required: ['send'],
              additionalProperties: false,
            },
          },
        ],
        toolChoice: 'required',
        temperature: 0,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
    const call = result.toolCalls.find((c) => c.name === 'decide');
    if (!call) return true;
    return (JSON.parse(call.arguments) as { send?: unknown }).send !== false;
  } catch {
    return true; // the business asked for the message; a judgement failure does not drop it
  }
}

async function sendAfterMessages(options: FinishOptions): Promise<void> {
  const { actions, effects } = options;
  for (const action of actions.actions) {
    if (action.kind !== 'SEND_SMS') continue;
    await sendAfterConversation(action.config, {
      messaging: effects.messaging ?? noMessaging,
      from: actions.party.ourNumber ?? '',
      to: actions.party.leadNumber ?? '',
      recorder: actions.recorder,
      variables: actions.variables,
      action_id: action.id,
      clock: effects.clock,
      shouldSend: (instructions) => shouldSend(options, instructions),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
}

/** One question's verdict from the model; an error text when it fails or answers unusably. */
async function askModel(
  options: FinishOptions,
  question: CustomEvalQuestion,
): Promise<{ ok: true; verdict: EvalVerdict } | { ok: false; error: string }> {
  let result: CollectedChat;
  try {
    result = await collectChat(
      options.llm.chat({
        ...(options.model ? { model: options.model } : {}),
        messages: [
          { role: 'system', content: evaluationPrompt(question) },
          { role: 'user', content: options.transcript },
        ],
        tools: [evaluationToolSpec(question)],
        toolChoice: 'required',
        temperature: 0,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
  } catch (err) {
    const detail = err instanceof LLMError ? `${String(err.code)}: ${err.message}` : errorText(err);
    return { ok: false, error: `model error (${detail})` };
  }
  if (result.finishReason === 'aborted') return { ok: false, error: 'aborted' };
  const call = result.toolCalls.find((c) => c.name === EVALUATION_TOOL);
  const parsed = parseVerdict(question, {
    ...(call ? { toolArguments: call.arguments } : {}),
    text: result.text,
  });
  return parsed.ok ? parsed : { ok: false, error: `the model's answer could not be used: ${parsed.error}` };
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Answers each attached CUSTOM_EVAL question over the transcript; one timeline run each. */
export async function runEvaluations(options: FinishOptions): Promise<void> {
  const { actions } = options;
  for (const action of actions.actions) {
    if (action.kind !== 'CUSTOM_EVAL') continue;
    const question = parseCustomEvalQuestion(action.config);
    if (!question) continue; // refused by the API; only a row written otherwise can be unusable
    const attempt = startEvaluation({ recorder: actions.recorder, action_id: action.id, question });
    if (options.transcript.trim() === '') {
      attempt.succeed(
        evaluationValue(question, { result: null, reason: 'nothing to evaluate: the conversation is empty' }),
      );
      continue;
    }
    if (isBuiltin(options.llm)) {
      attempt.succeed(evaluationValue(question, heuristicVerdict(question, options.transcript)));
      continue;
    }
    const answer = await askModel(options, question);
    if (answer.ok) attempt.succeed(evaluationValue(question, answer.verdict));
    else attempt.fail(answer.error, evaluationValue(question, { result: null, reason: answer.error }));
  }
}
