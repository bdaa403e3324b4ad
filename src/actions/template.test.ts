import { describe, expect, it } from 'vitest';
import { fillJsonBody, fillText, fillUrl, isJsonBodyTemplate, placeholderNames } from './index.ts';

// The one placeholder rule: `{name}` and `<name>` name a variable; only names with a value are
// replaced; `<name>` closed by `</name>` in the same template is an element, not a placeholder.

describe('action templates', () => {
  const values = { city: 'Oslo', user_name: 'Ada', count: 3, vip: true, title: 'Dr', b: 'bold' };

  it('fills {name} and <name> alike', () => {
    expect(fillText('Hi <user_name> from { city }', values)).toBe('Hi Ada from Oslo');
    expect(fillText('{count} items, vip <vip>', values)).toBe('3 items, vip true');
  });

  it('leaves placeholders without a value, and text that is not a placeholder, as written', () => {
    expect(fillText('Hi <nobody> and {nobody}', values)).toBe('Hi <nobody> and {nobody}');
    for (const text of [
      'a < b and b > a',
      'a<b',
      '<3 you',
      '< city >',
      '<city name>',
      'x <= y',
      '{"a": 1}',
    ]) {
      expect(fillText(text, values)).toBe(text);
    }
    // Inherited object keys are not variables.
    expect(fillText('<constructor> {toString}', values)).toBe('<constructor> {toString}');
  });

  it('leaves HTML elements alone even when a variable has their name', () => {
    expect(fillText('<title>Report</title> for <user_name>', values)).toBe('<title>Report</title> for Ada');
    expect(fillText('<B>big</b> and <b>', values)).toBe('<B>big</b> and <b>');
    // A variable whose name no closing tag uses is still filled.
    expect(fillText('<b> is <title>', { ...values, b: 'x' })).toBe('x is Dr');
  });

  it('removes line breaks from text values and percent-encodes URL values', () => {
    expect(fillText('<v>', { v: 'a\r\nX-Evil: 1' })).toBe('a X-Evil: 1');
    expect(fillUrl('https://x.example/<city>/{q}', { city: 'São Paulo', q: 'a&b' })).toBe(
      'https://x.example/S%C3%A3o%20Paulo/a%26b',
    );
  });

  it('fills a JSON body: escaped inside strings, JSON values outside', () => {
    const template =
      '{"who": "<user_name>", "html": "<b>hi</b> \\"<city>\\"", "n": <count>, "vip": {vip}, "s": <title>}';
    expect(JSON.parse(fillJsonBody(template, { ...values, user_name: 'A "q"' }))).toEqual({
      who: 'A "q"',
      html: '<b>hi</b> "Oslo"',
      n: 3,
      vip: true,
      s: 'Dr',
    });
    expect(fillJsonBody('{"a": <missing>}', values)).toBe('{"a": <missing>}');
  });

  it('names the placeholders of templates, and checks a JSON body with them as values', () => {
    expect(placeholderNames('{a} <b> <p>x</p> {a}', '<c> and {d}')).toEqual(['a', 'b', 'c', 'd']);
    expect(isJsonBodyTemplate('{"n": <count>, "s": "{city}", "o": {"k": {v}}}')).toBe(true);
    expect(isJsonBodyTemplate('{"n": <count>')).toBe(false);
    expect(isJsonBodyTemplate('{n: 1}')).toBe(false);
  });
});
