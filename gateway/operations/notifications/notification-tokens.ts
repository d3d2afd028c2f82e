/**
 * POST /v1/api-meta/notifications/tokens — register a push device token for the key's master
 * wallet (Scheme 2 over the path verbatim) and enrol it as a subscriber. Upsert by token (a
 * known one updates its platform). Reply 200 `{token, platform, tokens}`; 400 for a malformed
 * token or a 21st device.
 * Token rules: docs/decisions.md "Notifications and preferences".
 */
import { Type } from 'typebox';
import { ok } from '../../contract/errors.ts';
import { PLATFORMS, upsertToken, type Platform } from '../../services/notifications.ts';
import type { Operation } from '../../contract/operation.ts';
import { ADDRESS_PATTERN, isReply } from '../support/common.ts';
import { admitWalletPost, isRefusal, refused, walletContext } from '../support/wallet-signed.ts';
import { okReplies, nullable } from '../../contract/reply-schema.ts';

export const TokenBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 256 }),
    platform: Type.Optional(Type.Union(PLATFORMS.map((p) => Type.Literal(p)))),
    address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })),
  },
  { additionalProperties: true },
);

export const NOTIFICATION_TOKENS_RESPONSES = okReplies(Type.Object({ token: Type.String(), platform: nullable(Type.String()), tokens: Type.Integer() }));

export const notificationTokens: Operation<typeof NOTIFICATION_TOKENS_RESPONSES> = {
  name: 'notificationTokens',
  method: 'POST',
  path: '/v1/api-meta/notifications/tokens',
  auth: 'signed',
  description: 'register a push device token',
  schema: { body: TokenBody },
  response: NOTIFICATION_TOKENS_RESPONSES,
  errorSource: null,
  weight: 'notificationTokens',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as { token: string; platform?: Platform };
    const ctx = walletContext(state, request, true);
    if (isReply(ctx)) return ctx;
    return admitWalletPost(state, request, ctx, 'notificationTokens', () => {
      const ns = state.notifications;
      const token = upsertToken(ns, ctx.address, body.token, body.platform, state.clocks().simNs);
      if (isRefusal(token)) return refused(token);
      return ok({ token: token.token, platform: token.platform ?? null, tokens: ns.inboxes.get(ctx.address)!.tokens.length });
    });
  },
};
