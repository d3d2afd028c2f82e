/**
 * The commands that import the user's strategy file at run time, TypeScript included: for them
 * tsx (a dependency) is registered before the CLI loads. Only for them, because tsx's loader
 * hooks slow every later import of `serve`. Shared by bin/perpsim.mjs and scripts/start.mjs.
 */
export const STRATEGY_COMMANDS = ['backtest', 'sweep', 'worker'];

export async function registerStrategyLoader(argv = process.argv.slice(2)) {
  if (argv.some((arg) => STRATEGY_COMMANDS.includes(arg))) (await import('tsx/esm/api')).register();
}
