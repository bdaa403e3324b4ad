// Fakes of the provider seams, for tests of the modules that use them.
export { createScriptedLLM, type ScriptedLLM, type ScriptedReply, type ScriptStep } from './scripted-llm.ts';
