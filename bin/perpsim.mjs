#!/usr/bin/env node
/**
 * The `perpsim` command (package.json bin). In a checkout (the sources beside this file) it is
 * `npm start`'s runner, scripts/start.mjs, which keeps its bundle of the sources fresh; in the
 * installed package it runs the built CLI, dist/cli.js. `perpsim backtest` imports the user's
 * strategy file, TypeScript included: tsx (a dependency) is registered for that command only,
 * because its loader hooks slow every later import of `serve`.
 */
import { existsSync } from 'node:fs';

const checkout = new URL('../scripts/start.mjs', import.meta.url);
if (existsSync(new URL('../sim/main.ts', import.meta.url)) && existsSync(checkout)) {
  await import(checkout.href);
} else {
  if (process.argv.slice(2).includes('backtest')) (await import('tsx/esm/api')).register();
  await import(new URL('../dist/cli.js', import.meta.url).href);
}
