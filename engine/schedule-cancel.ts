/**
 * The dead man's switch (scheduleCancel).
 *
 * Contract: a switch is keyed by (account, market or account-wide). Arming needs a deadline
 * 5 s to 5 min after the command's time; a later call moves the deadline; a call without a
 * deadline disarms. When the engine's time reaches a deadline the switch fires: the engine runs
 * cancel-all for its scope and the switch is unarmed.
 *
 * Caps (interface.md "Other limits"): 10 auto-fires per UTC day per subaccount, shared by its
 * switches; 50 armed switches per wallet (master address). New arming beyond either cap is
 * refused (429); refreshing an armed switch is always allowed. A switch armed before the fire
 * cap was reached that comes due after it is disarmed without firing (docs/decisions.md).
 *
 * Determinism: due switches fire in (deadline, key) order.
 */
import type { Account } from './account.ts';
import { LIMITS } from './spec.ts';
import { plainRecord } from './plain-record.ts';

const US_PER_DAY = 86_400_000_000;

export interface Switch {
  key: string;
  account: Account;
  marketId: number | undefined;
  deadline: number;
}

export interface Switches {
  byKey: Map<string, Switch>;
  armedPerWallet: Map<string, number>;
  /** Fires per subaccount for one UTC day. */
  fires: Map<string, { day: number; count: number }>;
  /** Earliest deadline, or Infinity when nothing is armed. */
  next: number;
}

const buildSwitches = plainRecord<Switches>();

export function createSwitches(): Switches {
  return buildSwitches({ byKey: new Map(), armedPerWallet: new Map(), fires: new Map(), next: Infinity });
}

export function switchKey(account: Account, marketId: number | undefined): string {
  return account.key + '|' + (marketId === undefined ? '*' : marketId);
}

export type ArmOutcome = 'armed' | 'refreshed' | 'fireCap' | 'armedCap';

export function firesToday(switches: Switches, account: Account, time: number): number {
  const entry = switches.fires.get(account.key);
  return entry !== undefined && entry.day === Math.floor(time / US_PER_DAY) ? entry.count : 0;
}

export function arm(switches: Switches, account: Account, marketId: number | undefined, deadline: number, time: number): ArmOutcome {
  const key = switchKey(account, marketId);
  const existing = switches.byKey.get(key);
  if (existing !== undefined) {
    existing.deadline = deadline;
    recomputeNext(switches);
    return 'refreshed';
  }
  if (firesToday(switches, account, time) >= LIMITS.scheduleCancelFiresPerDay) return 'fireCap';
  const armed = switches.armedPerWallet.get(account.address) ?? 0;
  if (armed >= LIMITS.scheduleCancelArmedPerWallet) return 'armedCap';
  switches.byKey.set(key, { key, account, marketId, deadline });
  switches.armedPerWallet.set(account.address, armed + 1);
  if (deadline < switches.next) switches.next = deadline;
  return 'armed';
}

export function disarm(switches: Switches, account: Account, marketId: number | undefined): boolean {
  const key = switchKey(account, marketId);
  const existing = switches.byKey.get(key);
  if (existing === undefined) return false;
  remove(switches, existing);
  return true;
}

/**
 * Takes the switches due at `time` out of the set, earliest first, each with whether it may
 * fire (false when its subaccount already used the day's fires).
 */
export function takeDue(switches: Switches, time: number): { sw: Switch; fires: boolean }[] {
  const due: Switch[] = [];
  for (const sw of switches.byKey.values()) if (sw.deadline <= time) due.push(sw);
  due.sort((a, b) => a.deadline - b.deadline || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const out: { sw: Switch; fires: boolean }[] = [];
  for (const sw of due) {
    remove(switches, sw);
    const day = Math.floor(sw.deadline / US_PER_DAY);
    let entry = switches.fires.get(sw.account.key);
    if (entry === undefined || entry.day !== day) {
      entry = { day, count: 0 };
      switches.fires.set(sw.account.key, entry);
    }
    const fires = entry.count < LIMITS.scheduleCancelFiresPerDay;
    if (fires) entry.count++;
    out.push({ sw, fires });
  }
  return out;
}

function remove(switches: Switches, sw: Switch): void {
  switches.byKey.delete(sw.key);
  const armed = (switches.armedPerWallet.get(sw.account.address) ?? 1) - 1;
  if (armed === 0) switches.armedPerWallet.delete(sw.account.address);
  else switches.armedPerWallet.set(sw.account.address, armed);
  recomputeNext(switches);
}

function recomputeNext(switches: Switches): void {
  let next = Infinity;
  for (const sw of switches.byKey.values()) if (sw.deadline < next) next = sw.deadline;
  switches.next = next;
}
