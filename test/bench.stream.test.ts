import { describe, expect, it } from 'vitest';
import { MAKER_ACCOUNTS, TAKER_ACCOUNTS } from '../bench/setup.ts';
import { generateStream, MIX_PLACE_HEAVY, OP_CANCEL, OP_IOC, OP_MARKET } from '../bench/stream.ts';

const opts = { ops: 20_000, seed: 7, mix: MIX_PLACE_HEAVY, targetPerMarket: 100 };

function accountsUsed(makers?: number, takers?: number): { makers: Set<number>; takers: Set<number> } {
  const s = generateStream({ ...opts, makerAccounts: makers, takerAccounts: takers });
  const out = { makers: new Set<number>(), takers: new Set<number>() };
  for (let i = 0; i < s.length; i++) {
    const k = s.kind[i]!;
    if (k === OP_IOC || k === OP_MARKET) out.takers.add(s.account[i]!);
    else if (k < OP_CANCEL) out.makers.add(s.account[i]!);
  }
  return out;
}

describe('the engine-floor worlds: "20 makers and 5 takers" of the bench world\'s funded accounts', () => {
  it('draws makers from the first accounts and takers from the ones right after them', () => {
    const { makers, takers } = accountsUsed(20, 5);
    expect(Math.min(...makers)).toBe(0);
    expect(Math.max(...makers)).toBe(19);
    expect([...takers].every((a) => a >= 20 && a < 25)).toBe(true);
    expect(takers.size).toBe(5);
  });

  it('keeps the bench world when no counts are given', () => {
    const { makers, takers } = accountsUsed();
    expect(Math.max(...makers)).toBeLessThan(MAKER_ACCOUNTS);
    expect(makers.size).toBeGreaterThan(MAKER_ACCOUNTS / 2);
    expect([...takers].every((a) => a >= MAKER_ACCOUNTS && a < MAKER_ACCOUNTS + TAKER_ACCOUNTS)).toBe(true);
  });

  it('refuses more accounts than the bench world funds', () => {
    expect(() => generateStream({ ...opts, makerAccounts: MAKER_ACCOUNTS, takerAccounts: TAKER_ACCOUNTS + 1 })).toThrow(/more accounts/);
  });
});
