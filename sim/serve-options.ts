/**
 * What a config (sim/config.ts, the `--config` file) sets of the server's options: shared by the
 * CLI (sim/main.ts) and the in-process fixture (testing/index.ts), so a config means the same
 * thing to both. Options given directly (flags, startExchange's fields) are applied over these.
 */
import type { SimConfig } from './config.ts';
import { defaultMarkets } from './markets.ts';
import { loadPriceFile, replayMarket, type PriceRow } from './replay-feed.ts';
import type { ServerOptions } from './server.ts';

/** A usage problem (a bad option or file): the CLI reports it on stderr with exit code 2. */
export class UsageError extends Error {}

/** The price files, by market display name, read and checked against the markets. */
export function loadReplays(files: Record<string, string>, markets: NonNullable<ServerOptions['markets']>): Record<string, PriceRow[]> {
  const replay: Record<string, PriceRow[]> = {};
  for (const [name, file] of Object.entries(files)) {
    const market = replayMarket(markets, name);
    if (typeof market === 'string') throw new UsageError(market);
    replay[market.displayName] = loadPriceFile(file);
  }
  return replay;
}

/** The config's sections as server options; `pricesFiles` (by market) override the config's replays. */
export function configOptions(config: SimConfig, pricesFiles: Record<string, string> = {}): ServerOptions {
  const options: ServerOptions = {};
  if (config.markets) options.markets = config.markets;
  if (config.prices) options.prices = config.prices;
  if (config.feeTiers) options.risk = { feeTiers: config.feeTiers };
  if (config.limits) options.limits = config.limits;
  if (config.agents) options.agentParams = config.agents;
  if (config.walk) options.walk = config.walk;
  if (config.walkByMarket) options.walkByMarket = config.walkByMarket;
  const files = { ...config.replayFiles, ...pricesFiles };
  if (Object.keys(files).length > 0) options.replay = loadReplays(files, options.markets ?? defaultMarkets());
  if (config.seed !== undefined) options.seed = config.seed;
  if (config.geoBlocked !== undefined) options.geoBlocked = config.geoBlocked;
  return options;
}
