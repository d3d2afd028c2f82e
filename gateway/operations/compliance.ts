/**
 * GET /v1/compliance — {geo: {country, restrictions: {perpetuals}, bypassed},
 * address?: {status, reason}} (supplement §6).
 *
 * The geo section reports the caller as geo.ts sees it: the `X-Perpsim-Country` header's
 * country ("" when absent, the venue's "unknown"), whether perpetuals are restricted there, and
 * whether an allowlisted IP bypasses that. perpsim screens no addresses: with `?address=`
 * (validated like every address, 400 when malformed) the address is COMPLIANT with reason "".
 * The geo section is always present; the address section only when an address was given.
 */
import { Type } from 'typebox';
import { badRequest, ok } from '../errors.ts';
import { geoOf } from '../geo.ts';
import type { Operation } from '../operation.ts';
import { ADDRESS_PATTERN, parseAddress } from './common.ts';

export interface ComplianceRecord {
  geo: { country: string; restrictions: { perpetuals: boolean }; bypassed: boolean };
  address?: { status: 'COMPLIANT' | 'BLOCKED'; reason: string };
}

export const compliance: Operation = {
  name: 'compliance',
  method: 'GET',
  path: '/v1/compliance',
  auth: 'public',
  description: 'geo and address compliance',
  schema: { querystring: Type.Object({ address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })) }, { additionalProperties: true }) },
  handle: (state, request) => {
    const geo = geoOf(state.config.geo, request.headers, request.ip);
    const record: ComplianceRecord = { geo: { country: geo.country, restrictions: { perpetuals: geo.restricted || geo.bypassed }, bypassed: geo.bypassed } };
    if (request.query.address !== undefined) {
      if (parseAddress(request.query.address) === null) return badRequest('invalid address');
      record.address = { status: 'COMPLIANT', reason: '' };
    }
    return ok(record);
  },
};
