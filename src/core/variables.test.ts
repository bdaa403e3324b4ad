import { describe, expect, it } from 'vitest';
import { toVariableMap } from './variables.ts';

describe('toVariableMap', () => {
  it('reads the spec array and the plain object alike', () => {
    const fromArray = toVariableMap([
      { key: 'city', value: 'Oslo' },
      { key: 'age', value: 42 },
      { key: 'vip', value: true },
    ]);
    const fromObject = toVariableMap({ city: 'Oslo', age: 42, vip: true });
    expect(fromArray).toEqual({ city: 'Oslo', age: 42, vip: true });
    expect(fromObject).toEqual(fromArray);
  });

  it('drops nulls and keyless items, keeps the last of a repeated key', () => {
    expect(
      toVariableMap([
        { key: 'a', value: 1 },
        { value: 2 },
        { key: 'a', value: 3 },
        { key: 'b', value: null },
        7,
      ]),
    ).toEqual({ a: 3 });
    expect(toVariableMap({ a: null, b: Number.NaN, c: 'x' })).toEqual({ c: 'x' });
  });

  it('turns nested values into JSON text (lenient sources)', () => {
    expect(toVariableMap({ tags: ['a', 'b'], addr: { city: 'Oslo' } })).toEqual({
      tags: '["a","b"]',
      addr: '{"city":"Oslo"}',
    });
  });

  it('anything else is no variables', () => {
    for (const value of ['x', 5, null, undefined, true]) expect(toVariableMap(value)).toEqual({});
  });

  it('a __proto__ key stays an own key', () => {
    const vars = toVariableMap(JSON.parse('{"__proto__":{"polluted":1},"a":1}'));
    expect(Object.getPrototypeOf(vars)).toBe(Object.prototype);
    expect(Object.keys(vars)).toEqual(['__proto__', 'a']);
    const fromItems = toVariableMap([{ key: '__proto__', value: 'x' }]);
    expect(Object.keys(fromItems)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
