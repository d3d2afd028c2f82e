/**
 * Geo restriction (interface.md: state-changing actions can be blocked for callers in restricted
 * regions, `code` GEO_RESTRICTED; reads stay available).
 *
 * perpsim does not geolocate: the caller's region is the ISO country code in the
 * `X-Perpsim-Country` request header (absent: unknown, never blocked), so a bot's tests can play
 * a restricted user. A configured set of blocked regions turns state-changing routes into 403;
 * allowlisted IPs bypass the block (reported as `bypassed` by /v1/compliance).
 */
import { normalizeIp } from '../rate-limit/index.ts';

export const GEO_HEADER = 'x-perpsim-country';

export interface GeoConfig {
  blockedRegions: ReadonlySet<string>;
  bypassIps: ReadonlySet<string>;
}

export function geoConfig(blocked: Iterable<string> = [], bypassIps: Iterable<string> = []): GeoConfig {
  return { blockedRegions: new Set([...blocked].map((r) => r.toUpperCase())), bypassIps: new Set([...bypassIps].map(normalizeIp)) };
}

export interface GeoVerdict {
  country: string;
  restricted: boolean;
  bypassed: boolean;
}

export function geoOf(config: GeoConfig | undefined, headers: Record<string, string | string[] | undefined>, ip: string): GeoVerdict {
  const raw = headers[GEO_HEADER];
  const country = (Array.isArray(raw) ? raw[0] : raw)?.trim().toUpperCase() ?? '';
  const inBlocked = config !== undefined && country !== '' && config.blockedRegions.has(country);
  const bypassed = inBlocked && config.bypassIps.has(normalizeIp(ip));
  return { country, restricted: inBlocked && !bypassed, bypassed };
}
