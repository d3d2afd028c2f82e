/**
 * Building blocks of the operations' reply schemas (TypeBox), shared by the operation records.
 *
 * Contract: a reply schema lists every field its handler writes, in the order the handler
 * writes them: fastify serializes replies with fast-json-stringify compiled from these schemas,
 * which writes declared fields in declaration order and drops undeclared ones (open maps say
 * so with `additionalProperties`). Numbers that may not be integers are `Type.Number()`: the
 * compiled serializer truncates a non-integer declared `integer`.
 */
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { ERROR_CODES, ERROR_SOURCES, ERROR_TYPES, RATE_LIMIT_POOLS, REJECTION_REASONS } from '../engine/spec.ts';

/** A string from a fixed vocabulary: typed as its union, serialized as a plain string. */
export function stringEnum<const T extends readonly string[]>(values: T): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
}

/** The error body (interface.md "Error body"): `error` first; 429s and batch 401s add their own fields after it. */
export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    code: Type.Optional(stringEnum(ERROR_CODES)),
    errorSource: Type.Optional(stringEnum(ERROR_SOURCES)),
    errorType: Type.Optional(stringEnum(ERROR_TYPES)),
    rejectionReason: Type.Optional(stringEnum(REJECTION_REASONS)),
  },
  { additionalProperties: true },
);

export type ErrorBody = Static<typeof ErrorBody>;

/** `rateLimit` on order-write replies: the pool charged and what remains (-1: not enforced). */
export const RateLimitInfo = Type.Object({ pool: stringEnum(RATE_LIMIT_POOLS), remaining: Type.Number() });

/** Reply schemas by status code (`'4xx'` for every refusal), as fastify's `response`. */
export type Responses = Readonly<Record<string, TSchema>>;

/** The reply bodies a `Responses` map allows: the union of its schemas' static types. */
export type ReplyBody<R extends Responses> = { [K in keyof R]: Static<R[K]> }[keyof R];

/** The refusals of every operation that declares its replies. */
export const REFUSALS = { '4xx': ErrorBody, '5xx': ErrorBody } as const;
