/**
 * GET /ui: the web console (ui/, bundled by scripts/build-ui.mjs), served by perpsim itself.
 *
 * Contract: `/ui` (and `/ui/`) answer index.html; `/ui/<file>` answers a file of the built
 * directory by its plain name (no path separators), with its content type and `no-cache`.
 * Nothing is built here: without a built directory every /ui route answers 503 naming the build
 * command. `/ui/config.json` tells the page how /sim treats it (UiConfig). The routes are hidden from the OpenAPI document and the request log (sim/request-log.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isLoopback } from '../control.ts';
import type { UiConfig } from './protocol.ts';

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

/**
 * Where the built console is looked for, first found wins: beside the running module (the
 * package's dist/cli.js → dist/ui, `npm start`'s build/perpsim.mjs → build/ui), then, in the
 * package this module belongs to (the nearest directory above it with a package.json: the
 * checkout, or node_modules/perpsim), the checkout's build/ui and the package's dist/ui.
 */
export function defaultUiDirs(): string[] {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const dirs = [join(here, 'ui')];
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return [...dirs, join(dir, 'build', 'ui'), join(dir, 'dist', 'ui')];
    if (dirname(dir) === dir) return dirs;
  }
}

export function findUiDir(candidates: readonly string[] = defaultUiDirs()): string | undefined {
  return candidates.find((dir) => existsSync(join(dir, 'index.html')) && existsSync(join(dir, 'app.js')));
}

export interface UiOptions {
  /** The built console's directory (default: the first of defaultUiDirs() holding one). */
  dir?: string | undefined;
  /** Whether /sim wants the control token (the page then asks for it before calling /sim). */
  controlToken?: boolean;
}

export function registerUi(app: FastifyInstance, options: UiOptions = {}): void {
  // Looked up per request while missing, so a build made after start-up is picked up.
  let dir = options.dir ?? findUiDir();
  const send = (reply: FastifyReply, file: string): FastifyReply => {
    dir ??= findUiDir();
    if (dir === undefined || !existsSync(join(dir, 'index.html'))) {
      return reply.code(503).type(TYPES.txt!).send('the web console is not built: run `node scripts/build-ui.mjs` (npm start and npm install build it)\n');
    }
    const type = TYPES[file.slice(file.lastIndexOf('.') + 1)];
    // A plain file name only: no separator, no leading dot.
    if (type === undefined || !/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(file) || !existsSync(join(dir, file))) return reply.code(404).type(TYPES.txt!).send('not found\n');
    return reply.code(200).type(type).header('cache-control', 'no-cache').send(readFileSync(join(dir, file)));
  };
  // How /sim will treat this caller, so the page asks for the token instead of collecting 401s.
  app.get('/ui/config.json', { schema: { hide: true } }, (req, reply) => {
    const config: UiConfig = { controlToken: options.controlToken === true, loopback: isLoopback(req.ip) };
    return reply.header('cache-control', 'no-store').send(config);
  });
  app.get('/ui', { schema: { hide: true } }, (_req, reply) => send(reply, 'index.html'));
  app.get('/ui/', { schema: { hide: true } }, (_req, reply) => send(reply, 'index.html'));
  app.get('/ui/:file', { schema: { hide: true } }, (req, reply) => send(reply, (req.params as { file: string }).file));
}
