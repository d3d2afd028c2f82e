/**
 * GET /v1/compliance — `{geo: {country, region, restrictions: {perpetuals, spot}, bypassed},
 * address?: {address, status, reason?}}`: the caller's region as geo.ts sees it, and with
 * `?address=` that address echoed lowercase and COMPLIANT (perpsim screens no addresses).
 * Spec: supplement §6, widened to the captured live reply (docs/decisions.md "Fidelity to the
 * live venue").
 */
import { Type, type Static } from 'typebox';
import { badRequest, ok } from '../../contract/errors.ts';
import { geoOf } from '../../http/geo.ts';
import type { Operation } from '../../contract/operation.ts';
import { ADDRESS_PATTERN, parseAddress } from '../support/common.ts';
import { okReplies } from '../../contract/reply-schema.ts';

export const COMPLIANCE_RESPONSES = okReplies(
  Type.Object({
    geo: Type.Object({
      country: Type.String(),
      region: Type.String(),
      restrictions: Type.Object({ perpetuals: Type.Boolean(), spot: Type.Boolean() }),
      bypassed: Type.Boolean(),
    }),
    address: Type.Optional(Type.Object({ address: Type.String(), status: Type.Union([Type.Literal('COMPLIANT'), Type.Literal('BLOCKED')]), reason: Type.Optional(Type.String()) })),
  }),
);

export type ComplianceRecord = Static<(typeof COMPLIANCE_RESPONSES)[200]>;

export const compliance: Operation<typeof COMPLIANCE_RESPONSES> = {
  name: 'compliance',
  method: 'GET',
  path: '/v1/compliance',
  auth: 'public',
  description: 'geo and address compliance',
  schema: { querystring: Type.Object({ address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })) }, { additionalProperties: true }) },
  response: COMPLIANCE_RESPONSES,
  errorSource: null,
  weight: 'compliance',
  mutates: false,
  handle: (state, request) => {
    const geo = geoOf(state.config.geo, request.headers, request.ip);
    const restricted = geo.restricted || geo.bypassed;
    const record: ComplianceRecord = { geo: { country: geo.country, region: geo.country, restrictions: { perpetuals: restricted, spot: restricted }, bypassed: geo.bypassed } };
    if (request.query.address !== undefined) {
      const address = parseAddress(request.query.address);
      if (address === null) return badRequest('invalid address');
      record.address = { address, status: 'COMPLIANT' };
    }
    return ok(record);
  },
};
