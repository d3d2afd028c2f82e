/**
 * The `--config` file: a JSON object whose sections override the built-in defaults.
 *
 * Sections (all optional; unknown top-level keys are errors):
 * - `markets`: MarketDef[] — replaces the default markets entirely.
 * - `prices`: display name → starting oracle price (USD decimal string).
 * - `feeTiers`: `{ name, minVolume, makerFeePpm, takerFeePpm }[]`, `minVolume` a USD decimal
 *   string (converted to quote quantums, ×1e9); the first tier starts at 0, volumes increase.
 * - `agents`: partial AgentParams; `feeds`: partial WalkParams plus `seed`, `markets` (display
 *   name → partial WalkParams of that market) and `replay` (display name → price file to replay,
 *   sim/replay-feed.ts; a relative path is relative to the config file's folder).
 * - `limits`: partial EngineLimits; `geo`: `{ blocked: ["US", …] }`.
 *
 * `loadConfig` reads and validates a file; `parseConfig` validates a value already parsed. Every
 * bad field is reported, each with its JSON path, in one `ConfigError`. The markets and fee tiers
 * are also tried on a throwaway engine so that the engine's own checks fail here, not at start.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Type, type Static, type TSchema } from 'typebox';
import { Ajv, type ErrorObject } from 'ajv';
import { createEngine, MARKET_CATEGORIES, MARKET_STATUSES, type EngineLimits, type FeeTier, type MarketCategory, type MarketDef } from '../engine/index.ts';
import type { AgentParams } from './agents.ts';
import type { WalkParams } from './feeds.ts';

const DECIMAL = '^(\\d+\\.?\\d*|\\.\\d+)$';
const COUNTRY = '^[A-Z]{2}$';
/** What a failed pattern means, in words. */
const PATTERN_TEXT: Record<string, string> = { [DECIMAL]: 'must be a non-negative decimal string', [COUNTRY]: 'must be a two-letter ISO country code' };
const Decimal = Type.String({ pattern: DECIMAL });
const Int = (min = 0) => Type.Integer({ minimum: min });
const Num = (min = 0) => Type.Number({ minimum: min });
const Strict = { additionalProperties: false } as const;

const MarketSchema = Type.Object(
  {
    id: Int(1),
    displayName: Type.String({ minLength: 1 }),
    baseAsset: Type.String({ minLength: 1 }),
    fullAssetName: Type.Optional(Type.String()),
    status: Type.Enum([...MARKET_STATUSES]),
    // One enum with null (not a union) so that a bad value gets one message.
    category: Type.Unsafe<MarketCategory | null>({ enum: [...MARKET_CATEGORIES, null] }),
    tickSize: Decimal,
    stepSize: Decimal,
    tickTiers: Type.Array(Type.Object({ upToPrice: Type.Optional(Decimal), tick: Decimal }, Strict), { minItems: 1 }),
    minOrderNotional: Decimal,
    minOrderSize: Decimal,
    maxOrderSize: Decimal,
    initialMarginFraction: Decimal,
    maintenanceMarginFraction: Decimal,
    offHoursInitialMarginFraction: Decimal,
    maxLeverage: Type.Optional(Int(1)),
    regularTradingHours: Type.Union([
      Type.Object({ startSecondsOfDay: Int(), endSecondsOfDay: Int(), timezone: Type.String({ minLength: 1 }), isOvernight: Type.Optional(Type.Boolean()) }, Strict),
      Type.Null(),
    ]),
    addedTimestamp: Int(),
  },
  Strict,
);

const WalkFields = {
  volatility: Num(),
  jumpProbability: Type.Number({ minimum: 0, maximum: 1 }),
  jumpSize: Num(),
  offHoursVolatility: Num(),
  sessionGap: Num(),
};

const ConfigSchema = Type.Object(
  {
    markets: Type.Optional(Type.Array(MarketSchema, { minItems: 1 })),
    prices: Type.Optional(Type.Record(Type.String(), Decimal)),
    feeTiers: Type.Optional(
      Type.Array(Type.Object({ name: Type.String({ minLength: 1 }), minVolume: Decimal, makerFeePpm: Type.Integer(), takerFeePpm: Int() }, Strict), { minItems: 1 }),
    ),
    agents: Type.Optional(
      Type.Partial(
        Type.Object(
          { levels: Int(1), spacingBps: Num(), levelNotionalUsd: Num(), skewBpsPer10k: Num(), takeProbability: Type.Number({ minimum: 0, maximum: 1 }), takeNotionalUsd: Num() },
        ),
        Strict,
      ),
    ),
    feeds: Type.Optional(
      Type.Partial(
        Type.Object({
          ...WalkFields,
          seed: Int(),
          markets: Type.Record(Type.String({ minLength: 1 }), Type.Partial(Type.Object(WalkFields), Strict)),
          replay: Type.Record(Type.String({ minLength: 1 }), Type.String({ minLength: 1 })),
        }),
        Strict,
      ),
    ),
    limits: Type.Optional(Type.Partial(Type.Object({ openOrdersPerMarket: Int(1), modifyBufferUs: Int() }), Strict)),
    geo: Type.Optional(Type.Object({ blocked: Type.Array(Type.String({ pattern: COUNTRY })) }, Strict)),
  },
  Strict,
);

type RawConfig = Static<typeof ConfigSchema>;

/** The validated file, in the engine's and simulator's own types. */
export interface SimConfig {
  markets?: MarketDef[];
  prices?: Record<string, string>;
  feeTiers?: FeeTier[];
  agents?: Partial<AgentParams>;
  walk?: Partial<WalkParams>;
  walkByMarket?: Record<string, Partial<WalkParams>>;
  /** Price files to replay, by market display name (paths relative to the config file's folder). */
  replayFiles?: Record<string, string>;
  seed?: number;
  limits?: Partial<EngineLimits>;
  geoBlocked?: string[];
}

export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is invalid:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** "/markets/0/tickSize" → "markets[0].tickSize" ("(root)" for the empty pointer). */
function jsonPath(pointer: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  return out === '' ? '(root)' : out;
}

/** A check of `schema` that gives one message per bad field, each with its JSON path (none: valid). */
export function schemaChecker(schema: TSchema): (value: unknown) => string[] {
  // allErrors: every bad field, not the first; TypeBox's own Value.Errors stops at a global cap.
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  return (value) => (validate(value) ? [] : problemsOf(validate.errors ?? []));
}

function problemsOf(errors: ErrorObject[]): string[] {
  const problems = new Set<string>();
  for (const e of errors) {
    const path = jsonPath(e.instancePath);
    if (e.keyword === 'additionalProperties') {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      problems.add(`${path === '(root)' ? key : `${path}.${key}`}: unknown key`);
    } else if (e.keyword === 'enum') {
      problems.add(`${path}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`);
    } else if (e.keyword === 'pattern') {
      const pattern = (e.params as { pattern: string }).pattern;
      problems.add(`${path}: ${PATTERN_TEXT[pattern] ?? `must match ${pattern}`}`);
    } else if (e.keyword !== 'anyOf') problems.add(`${path}: ${e.message ?? e.keyword}`);
  }
  return [...problems];
}

const schemaProblems = schemaChecker(ConfigSchema);

const QUANTUMS_PER_USD = 9;

/** "1000000.5" USD → quote quantums (1e-9 USD); null when finer than a quantum. */
function usdToQuantums(text: string): bigint | null {
  const [whole = '', frac = ''] = text.split('.');
  if (frac.length > QUANTUMS_PER_USD) return null;
  return BigInt((whole === '' ? '0' : whole) + frac.padEnd(QUANTUMS_PER_USD, '0'));
}

function convert(raw: RawConfig, problems: string[]): SimConfig {
  const config: SimConfig = {};
  if (raw.markets !== undefined) {
    config.markets = raw.markets as MarketDef[];
    const ids = new Set<number>();
    const names = new Set<string>();
    raw.markets.forEach((m, i) => {
      if (ids.has(m.id)) problems.push(`markets[${i}].id: duplicate market id ${m.id}`);
      if (names.has(m.displayName)) problems.push(`markets[${i}].displayName: duplicate display name ${m.displayName}`);
      ids.add(m.id);
      names.add(m.displayName);
    });
  }
  if (raw.prices !== undefined) config.prices = { ...raw.prices };
  if (raw.feeTiers !== undefined) {
    const tiers: FeeTier[] = [];
    raw.feeTiers.forEach((t, i) => {
      const minVolume = usdToQuantums(t.minVolume);
      if (minVolume === null) return problems.push(`feeTiers[${i}].minVolume: finer than 1e-9 USD`);
      if (i === 0 && minVolume !== 0n) problems.push('feeTiers[0].minVolume: the first tier must start at 0');
      const prev = tiers[tiers.length - 1];
      if (prev !== undefined && minVolume <= prev.minVolume) problems.push(`feeTiers[${i}].minVolume: must be above the previous tier's`);
      tiers.push({ name: t.name, minVolume, makerFeePpm: t.makerFeePpm, takerFeePpm: t.takerFeePpm });
      return undefined;
    });
    config.feeTiers = tiers;
  }
  if (raw.agents !== undefined) config.agents = { ...raw.agents };
  if (raw.feeds !== undefined) {
    const { seed, markets, replay, ...walk } = raw.feeds;
    config.walk = walk;
    if (seed !== undefined) config.seed = seed;
    if (markets !== undefined) config.walkByMarket = { ...markets };
    if (replay !== undefined) config.replayFiles = { ...replay };
  }
  if (raw.limits !== undefined) config.limits = { ...raw.limits };
  if (raw.geo !== undefined) config.geoBlocked = [...raw.geo.blocked];
  return config;
}

/** Validates an already-parsed config value; throws ConfigError listing every bad field. */
export function parseConfig(value: unknown, source = 'config'): SimConfig {
  const schema = schemaProblems(value);
  if (schema.length > 0) throw new ConfigError(source, schema);
  const problems: string[] = [];
  const config = convert(value as RawConfig, problems);
  if (problems.length === 0 && (config.markets !== undefined || config.feeTiers !== undefined)) {
    try {
      createEngine({ markets: config.markets ?? [], risk: config.feeTiers === undefined ? {} : { feeTiers: config.feeTiers } });
    } catch (err) {
      problems.push(`${config.markets === undefined ? 'feeTiers' : 'markets'}: ${(err as Error).message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(source, problems);
  return config;
}

/** Reads and validates a JSON config file; throws ConfigError (unreadable, not JSON, or invalid). */
export function loadConfig(file: string): SimConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`config file ${file}`, [`cannot be read: ${(err as Error).message}`]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${file}`, [`is not JSON: ${(err as Error).message}`]);
  }
  const config = parseConfig(value, `config file ${file}`);
  if (config.replayFiles !== undefined) {
    for (const [market, path] of Object.entries(config.replayFiles)) config.replayFiles[market] = resolve(dirname(file), path);
  }
  return config;
}
