/**
 * The default market universe, modelled on the real venue's testnet (supplement §8): the same
 * ids, tick and step sizes, tick tiers, order size bounds and margin fractions for the markets
 * it names, plus an index and a commodity market, and one OFFLINE market.
 *
 * Tick tiers follow the venue's pattern: bands at 1, 2, 4, 10 and 20 times the first bound with
 * ticks of 1, 2, 5, 10, 20 and 50 times the base tick (BTC's published ladder is exactly that).
 * MMF = IMF × 2/3 rounded up at 6 decimals; default and maximum leverage = floor(1 / IMF).
 */
import type { MarketDef } from '../engine/types.ts';

const TIER_BOUNDS = [1, 2, 4, 10, 20];
const TIER_TICKS = [1, 2, 5, 10, 20, 50];

/** "0.1" × k as an exact decimal string (k a small integer). */
function times(decimal: string, k: number): string {
  const [whole, frac = ''] = decimal.split('.');
  const scale = frac.length;
  const units = BigInt(whole! + frac) * BigInt(k);
  const text = units.toString().padStart(scale + 1, '0');
  if (scale === 0) return text;
  const cut = text.length - scale;
  const out = `${text.slice(0, cut)}.${text.slice(cut)}`.replace(/\.?0+$/, '');
  return out === '' ? '0' : out;
}

function tiers(tick: string, firstBound: string): MarketDef['tickTiers'] {
  return TIER_TICKS.map((k, i) => (i < TIER_BOUNDS.length ? { upToPrice: times(firstBound, TIER_BOUNDS[i]!), tick: times(tick, k) } : { tick: times(tick, k) }));
}

interface Spec {
  id: number;
  base: string;
  name: string;
  category: MarketDef['category'];
  tick: string;
  step: string;
  firstBound: string;
  min: string;
  max: string;
  imf: string;
  mmf: string;
  offHoursImf: string;
  status?: MarketDef['status'];
  hours?: MarketDef['regularTradingHours'];
}

const NEW_YORK_RTH: MarketDef['regularTradingHours'] = { startSecondsOfDay: 14_400, endSecondsOfDay: 72_000, timezone: 'America/New_York', isOvernight: false };

const SPECS: Spec[] = [
  { id: 1, base: 'BTC', name: 'Bitcoin', category: 'CRYPTO', tick: '0.1', step: '0.00000001', firstBound: '500000', min: '0.0001', max: '10000', imf: '0.025', mmf: '0.016667', offHoursImf: '0.025' },
  { id: 2, base: 'ETH', name: 'Ethereum', category: 'CRYPTO', tick: '0.01', step: '0.0000001', firstBound: '10000', min: '0.001', max: '100000', imf: '0.04', mmf: '0.026667', offHoursImf: '0.04' },
  { id: 3, base: 'SOL', name: 'Solana', category: 'CRYPTO', tick: '0.001', step: '0.000001', firstBound: '500', min: '0.01', max: '1000000', imf: '0.05', mmf: '0.033334', offHoursImf: '0.05' },
  { id: 4, base: 'DOGE', name: 'Dogecoin', category: 'CRYPTO', tick: '0.00001', step: '0.0001', firstBound: '0.5', min: '1', max: '100000000', imf: '0.1', mmf: '0.066667', offHoursImf: '0.1' },
  { id: 9, base: 'AMD', name: 'Advanced Micro Devices', category: 'EQUITIES', tick: '0.01', step: '0.0000001', firstBound: '10000', min: '0.01', max: '100000', imf: '0.1', mmf: '0.066667', offHoursImf: '0.15', hours: NEW_YORK_RTH },
  { id: 10, base: 'SPX', name: 'S&P 500 Index', category: 'INDICES', tick: '0.01', step: '0.0000001', firstBound: '10000', min: '0.001', max: '100000', imf: '0.02', mmf: '0.013334', offHoursImf: '0.03', hours: NEW_YORK_RTH },
  { id: 11, base: 'F', name: 'Ford Motor', category: 'EQUITIES', tick: '0.01', step: '0.0000001', firstBound: '10000', min: '1', max: '10000000', imf: '0.2', mmf: '0.133334', offHoursImf: '0.3', status: 'OFFLINE', hours: NEW_YORK_RTH },
  { id: 12, base: 'XAU', name: 'Gold', category: 'COMMODITIES', tick: '0.01', step: '0.0000001', firstBound: '10000', min: '0.001', max: '100000', imf: '0.05', mmf: '0.033334', offHoursImf: '0.05' },
];

/** The default markets, ascending by id. */
export function defaultMarkets(): MarketDef[] {
  return SPECS.map((s) => ({
    id: s.id,
    displayName: `${s.base}-USD`,
    baseAsset: s.base,
    fullAssetName: s.name,
    status: s.status ?? 'ONLINE',
    category: s.category,
    tickSize: s.tick,
    stepSize: s.step,
    tickTiers: tiers(s.tick, s.firstBound),
    minOrderNotional: '5',
    minOrderSize: s.min,
    maxOrderSize: s.max,
    initialMarginFraction: s.imf,
    maintenanceMarginFraction: s.mmf,
    offHoursInitialMarginFraction: s.offHoursImf,
    regularTradingHours: s.hours ?? null,
    addedTimestamp: 1_735_689_600,
  }));
}

/** Starting oracle prices (USD) for the simulator's feeds and tests. */
export const DEFAULT_PRICES: Readonly<Record<string, string>> = {
  'BTC-USD': '97000',
  'ETH-USD': '3400',
  'SOL-USD': '190',
  'DOGE-USD': '0.32',
  'AMD-USD': '125',
  'SPX-USD': '6000',
  'F-USD': '10',
  'XAU-USD': '2650',
};
