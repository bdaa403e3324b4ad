import { systemClock } from '../core/index.ts';
import { LLMError, collectChat, type ChatMessage, type LLM } from '../providers/index.ts';
import { heuristicFields } from './analysis/heuristic.ts';
import type { AnalysisDeps, AnalysisInput } from './analysis/input.ts';
import { parseJudgement, type ParsedJudgement } from './analysis/judge-parse.ts';
import { ANALYSIS_TOOL, analysisToolSpec, judgeMessages } from './analysis/judge-prompt.ts';
import { finalizeAnalysis, type Analysis, type AnalysisFields } from './analysis/schema.ts';

// Post-call analysis (spec, Events, "Analysis"). A real model judges the conversation through one
// required tool call; the builtin model cannot judge, so a deterministic heuristic does. The
// result is always a well-formed analysis: when the model fails twice, the heuristic's analysis
// stands in and `error` says why (docs/builtin-model.md, "Post-call analysis").

export interface AnalysisResult {
  analysis: Analysis;
  /** Who produced `analysis`. */
  judge: 'llm' | 'heuristic';
  /** Why the model judge's answer was not used; absent when it was, or when none was asked. */
  error?: string;
  /** Model calls made (0 for the heuristic alone). */
  attempts: number;
  durationMs: number;
}

/** Model calls for one analysis: the first answer and one retry. */
export const JUDGE_ATTEMPTS = 2;

const usesModel = (llm: LLM | null | undefined): llm is LLM => !!llm && llm.name !== 'builtin';

export async function analyzeConversation(
  input: AnalysisInput,
  deps: AnalysisDeps = {},
): Promise<AnalysisResult> {
  const clock = deps.clock ?? systemClock;
  const startedAt = clock.now();
  const done = (
    fields: AnalysisFields,
    judge: AnalysisResult['judge'],
    attempts: number,
    error?: string,
  ) => ({
    analysis: finalizeAnalysis(fields),
    judge,
    ...(error !== undefined ? { error } : {}),
    attempts,
    durationMs: clock.now() - startedAt,
  });
  const heuristic = heuristicFields(input);
  if (!usesModel(deps.llm)) return done(heuristic, 'heuristic', 0);

  const base = judgeMessages(input);
  let messages = base;
  let error = 'no answer';
  let attempts = 0;
  while (attempts < JUDGE_ATTEMPTS) {
    if (deps.signal?.aborted) return done(heuristic, 'heuristic', attempts, 'analysis aborted');
    attempts++;
    const answer = await askJudge(deps.llm, messages, deps);
    if (answer.ok) {
      // The summary is the one field a judge may leave empty without being wrong about the call.
      const fields = answer.fields.call_summary_feedback.trim()
        ? answer.fields
        : { ...answer.fields, call_summary_feedback: heuristic.call_summary_feedback };
      return done(fields, 'llm', attempts);
    }
    error = answer.error;
    if ('aborted' in answer) return done(heuristic, 'heuristic', attempts, 'analysis aborted');
    // The retry tells the model what was wrong, which fixes most schema slips.
    messages = [
      ...base,
      {
        role: 'user',
        content: `Your previous answer could not be used (${error}). Call ${ANALYSIS_TOOL} again with every field set to an allowed value.`,
      },
    ];
  }
  return done(heuristic, 'heuristic', attempts, `model judge failed after ${attempts} attempts: ${error}`);
}

async function askJudge(
  llm: LLM,
  messages: ChatMessage[],
  deps: AnalysisDeps,
): Promise<ParsedJudgement | { ok: false; error: string; aborted: true }> {
  try {
    const reply = await collectChat(
      llm.chat({
        ...(deps.model !== undefined ? { model: deps.model } : {}),
        messages,
        tools: [analysisToolSpec()],
        toolChoice: 'required',
        temperature: 0,
        ...(deps.signal ? { signal: deps.signal } : {}),
      }),
    );
    if (reply.finishReason === 'aborted') return { ok: false, error: 'aborted', aborted: true };
    const call = reply.toolCalls.find((c) => c.name === ANALYSIS_TOOL);
    if (!call) return { ok: false, error: `the model did not call ${ANALYSIS_TOOL}` };
    return parseJudgement(call.arguments);
  } catch (e) {
    if (deps.signal?.aborted) return { ok: false, error: 'aborted', aborted: true };
    const detail =
      e instanceof LLMError ? `${String(e.code)}: ${e.message}` : e instanceof Error ? e.message : String(e);
    return { ok: false, error: `model error (${detail})` };
  }
}
