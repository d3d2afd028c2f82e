#!/usr/bin/env node
/**
 * The `perpsim` command (package.json bin). In a checkout (the sources beside this file) it is
 * `npm start`'s runner, scripts/start.mjs, which keeps its bundle of the sources fresh; in the
 * installed package it runs the built CLI, dist/cli.js. `perpsim backtest`, `sweep` and `worker`
 * import the user's strategy file, TypeScript included (strategy-loader.mjs).
 */
import { existsSync } from 'node:fs';
import { registerStrategyLoader } from './strategy-loader.mjs';

const checkout = new URL('../scripts/start.mjs', import.meta.url);
if (existsSync(new URL('../sim/main.ts', import.meta.url)) && existsSync(checkout)) {
  await import(checkout.href);
} else {
  await registerStrategyLoader();
  await import(new URL('../dist/cli.js', import.meta.url).href);
}
