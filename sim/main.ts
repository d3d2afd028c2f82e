/**
 * `npm start` / `perpsim serve`: runs the exchange with the embedded defaults on
 * http://127.0.0.1:8080 (PORT or --port to change; --host; --clock realtime|accelerated|virtual;
 * --speed N; --no-auth; --no-rate-limits; --control-token T; --geo-block US,CA).
 */
import { startServer, type ServerOptions } from './server.ts';

function parse(argv: string[]): ServerOptions {
  const options: ServerOptions = {};
  const value = (i: number): string => {
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`${argv[i]} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === 'serve') continue;
    if (arg === '--port') options.port = Number(value(i++));
    else if (arg === '--host') options.host = value(i++);
    else if (arg === '--clock') options.clock = value(i++) as ServerOptions['clock'];
    else if (arg === '--speed') options.speed = Number(value(i++));
    else if (arg === '--control-token') options.controlToken = value(i++);
    else if (arg === '--geo-block') options.geoBlocked = value(i++).split(',').filter((r) => r.length > 0);
    else if (arg === '--no-auth') options.auth = false;
    else if (arg === '--no-rate-limits') options.rateLimits = false;
    else if (arg === '--help' || arg === '-h') {
      console.log('usage: perpsim serve [--host 127.0.0.1] [--port 8080] [--clock realtime|accelerated|virtual] [--speed N] [--no-auth] [--no-rate-limits] [--control-token T] [--geo-block US,CA]');
      process.exit(0);
    } else throw new Error(`unknown option ${arg} (see --help)`);
  }
  if (options.port === undefined && process.env.PORT !== undefined) options.port = Number(process.env.PORT);
  return options;
}

try {
  const server = await startServer(parse(process.argv.slice(2)));
  console.log(`perpsim listening on ${server.url} (clock ${server.clock.mode})`);
  const shutdown = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
} catch (err) {
  console.error(`perpsim: ${(err as Error).message}`);
  process.exit(1);
}
