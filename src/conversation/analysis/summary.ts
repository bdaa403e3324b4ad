import type { AnalysisInput } from './input.ts';
import { SUMMARY_MAX_CHARS, clip } from './schema.ts';

// An extractive call summary: who answered, the agent's opening, the person's first and last
// words, what was collected and done, and how the call ended. Only quotes of the transcript and
// names (of variables and actions) go in, so it holds nothing the transcript does not already
// hold; collected values are left out on purpose.

const ENDINGS: Record<string, string> = {
  agent_goodbye: 'the agent ended the call',
  human_goodbye: 'the person said goodbye',
  custom_end_call: 'the call ended on an end-call reason',
  voicemail: 'the call reached voicemail',
  voicemail_message_left: 'a voicemail message was left',
  human_pick_up_cut_off: 'the person hung up',
  max_duration: 'the call reached its maximum duration',
  user_canceled: 'the call was canceled',
  max_turns: 'the conversation reached its turn limit',
};

const q = (text: string, max: number) => `"${clip(text, max)}"`;

export function extractiveSummary(input: AnalysisInput, turns: AnalysisInput['turns']): string {
  const agent = turns.filter((t) => t.speaker === 'agent');
  const user = turns.filter((t) => t.speaker === 'user');
  const parts: string[] = [];
  if (turns.length === 0) parts.push('No conversation took place.');
  else {
    const who = input.answeredBy === 'machine' ? 'A machine answered. ' : '';
    const first = agent[0];
    if (first) parts.push(`${who}The agent opened with ${q(first.text, 110)}.`);
    else if (who) parts.push(who.trim());
    const [said, last] = [user[0], user.length > 1 ? user[user.length - 1] : undefined];
    if (said)
      parts.push(`The person said ${q(said.text, 90)}${last ? ` and finally ${q(last.text, 70)}` : ''}.`);
    else parts.push('The person said nothing.');
  }
  const collected = Object.entries(input.collectedVariables ?? {})
    .filter(([, v]) => v.collected)
    .map(([k]) => k);
  if (collected.length > 0) parts.push(`Collected: ${collected.join(', ')}.`);
  const actions = (input.actions ?? []).map((a) => `${a.name} (${a.success ? 'succeeded' : 'failed'})`);
  if (actions.length > 0) parts.push(`Actions: ${actions.join(', ')}.`);
  const reason = input.endCallReason;
  const ending = reason ? (ENDINGS[reason] ?? `end reason ${reason}`) : undefined;
  if (ending) {
    const custom =
      reason === 'custom_end_call' && input.customEndCallReason ? ` (${input.customEndCallReason})` : '';
    parts.push(`Outcome: ${ending}${custom}.`);
  }
  return clip(parts.join(' '), SUMMARY_MAX_CHARS);
}
