import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bigToUnits, toUnits, unitOf } from '../engine/units.ts';

const UNITS = ['1', '0.1', '0.5', '0.01', '0.25', '0.00001', '0.000001', '5', '25', '0.0000001'].map(unitOf);

/** The reference answer: big.js all the way, as every conversion was before the integer path. */
function reference(text: string, unit: ReturnType<typeof unitOf>): number | null {
  if (text.length === 0 || text.length > 64 || !/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) return null;
  return bigToUnits(new Big(text.replace(/^\+/, '')), unit);
}

const decimalText = fc
  .tuple(
    fc.constantFrom('', '', '', '-', '+'),
    fc.stringMatching(/^\d{0,18}$/),
    fc.constantFrom('', '.'),
    fc.stringMatching(/^\d{0,12}$/),
  )
  .map(([sign, int, dot, frac]) => sign + int + dot + (dot ? frac : ''));

describe('Decimal strings convert exactly (big.js at the boundary) or are rejected', () => {
  it('the integer path gives big.js answer for any decimal string and unit', () => {
    fc.assert(
      fc.property(decimalText, fc.constantFrom(...UNITS), (text, unit) => {
        expect(toUnits(text, unit)).toBe(reference(text, unit));
      }),
      { numRuns: 20_000 },
    );
  });

  it('a multiple of the unit converts, a near-multiple is rejected', () => {
    const tick = unitOf('0.5');
    expect(toUnits('100000.5', tick)).toBe(200001);
    expect(toUnits('100000.50000', tick)).toBe(200001);
    expect(toUnits('100000.25', tick)).toBeNull();
    expect(toUnits('999999999999.5', unitOf('0.000001'))).toBeNull(); // beyond 2^53 units
    expect(toUnits('+2.5', unitOf('0.5'))).toBe(5);
    expect(toUnits('99999999.999999', unitOf('0.0000001'))).toBe(999999999999990);
    expect(toUnits('99999999.9999991', unitOf('0.000002'))).toBeNull();
    expect(toUnits('1e3', unitOf('1'))).toBeNull();
    expect(toUnits('.5', unitOf('0.1'))).toBe(5);
    expect(toUnits('5.', unitOf('0.1'))).toBe(50);
  });
});
