import { describe, expect, it } from 'vitest';
import { createScriptedCallee } from './scripted-callee.ts';

describe('scripted callee', () => {
  it('opens, plays its turns in order, records what it heard, then hangs up silently', async () => {
    const callee = createScriptedCallee(['Yes.', (said) => ({ text: `Bye, ${said}`, hangUp: true })]);
    expect(await callee.opening()).toBe('Hello?');
    expect(await callee.reply('Do you own your home?')).toEqual({ text: 'Yes.', hangUp: false });
    expect(await callee.reply('Sam')).toEqual({ text: 'Bye, Sam', hangUp: true });
    expect(await callee.reply('Hello?')).toEqual({ text: '', hangUp: true });
    expect(callee.heard).toEqual(['Do you own your home?', 'Sam', 'Hello?']);
  });

  it('takes its opening and after-script turn from options', async () => {
    const callee = createScriptedCallee([], { opening: '', afterScript: { text: 'Hm?', hangUp: false } });
    expect(await callee.opening()).toBe('');
    expect(await callee.reply('Hi')).toEqual({ text: 'Hm?', hangUp: false });
  });
});
