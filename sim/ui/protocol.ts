/**
 * What the web console (ui/) and the server agree on, imported by both (plain constants only:
 * this module is bundled into the browser page).
 */

/**
 * Sent by the console on its own REST reads: the request log leaves them out, so watching an
 * address in the console does not add requests attributed to it to `/sim/journal`.
 */
export const CONSOLE_HEADER = 'x-perpsim-console';

/** GET /ui/config.json: how the control API (/sim) will treat the page's requests. */
export interface UiConfig {
  /** perpsim runs with --control-token: every /sim call needs `Authorization: Bearer <token>`. */
  controlToken: boolean;
  /** The page's requests come from a loopback address (enough for /sim when there is no token). */
  loopback: boolean;
}

/** One record of GET /sim/journal (sim/request-log.ts states what each field holds). */
export interface RequestRecord {
  id: number;
  time: number;
  transport: 'rest' | 'ws';
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body: unknown;
  bodyBytes?: number;
  status: number;
  address?: string;
}
