import type { ScriptStep } from './scripted-llm.ts';
import { createScriptedLLM, runLLMContract } from './index.ts';

runLLMContract(
  'scripted',
  async () => {
    const steps: ScriptStep[] = [];
    return {
      llm: createScriptedLLM(steps),
      script: (replies) => void steps.push(...replies),
      close: async () => {},
    };
  },
  { errors: true },
);
