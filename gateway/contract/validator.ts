/**
 * The schema validator of REST (fastify's validator compiler) and the WebSocket's RPC payloads:
 * one ajv instance, built by `createSchemaValidator`, with fastify's default options (strings
 * coerced to the declared type, defaults filled, undeclared properties dropped, first error only).
 *
 * Finite numbers: ajv's coercion turns the strings "Infinity", "-Infinity", "1e400" into
 * ±Infinity for an integer or number field (its test is `s == +s && !(s % 1)`), and its range
 * keywords skip non-finite values, so `accountIndex=Infinity` passed `maximum: 9`. Every schema
 * compiled here carries a `finite` keyword beside each numeric `type`; it runs after coercion
 * and refuses ±Infinity and NaN ("must be a finite number"). The schemas as declared (OpenAPI,
 * serialization) are untouched: the keyword is added to the copy ajv compiles.
 *
 * A field that is a string or a number (`anyOf` of both): ajv tries the branches in order and
 * coerces in each, so a string that failed the string branch's pattern ("0x10", " 12", "1e3")
 * became the number JavaScript makes of it in the numeric branch (a deposit of "0x10" credited
 * 16 USD), and a JSON number became its shortest string in a string branch first ("1e-7"). The
 * copy ajv compiles tries the numeric branches first and lets only JSON numbers into them
 * (`jsonNumber`, checked before the branch's own coercion); strings go to the string branches.
 *
 * A numeric field given as text (a query parameter) takes decimal digits only (`decimalText`,
 * before the coercion that read "0x10" as 16).
 *
 * Both compilers keep what they compiled by schema object: fastify's route compile and the
 * WebSocket's lookup of the same operation's schema get the same function, compiled once.
 * `createReplySerializer` compiles reply schemas with fast-json-stringify (fastify's own
 * serializer, without its per-route copies).
 */
import AjvModule, { type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import fastJson from 'fast-json-stringify';
// The augmentation below needs fastify in the program even where nothing else imports it.
import type {} from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's validator (buildApp), for the WebSocket's RPC payloads. */
    schemaValidator: SchemaValidator;
    /** The app's reply serializer (buildApp), for the WebSocket's RPC results. */
    replySerializer: ReplySerializer;
  }
}

export interface ReplySerializer {
  /** The compiled serializer of a reply schema (a TypeBox schema included). */
  compile(schema: unknown): (body: unknown) => string;
}

export function createReplySerializer(): ReplySerializer {
  const compiled = new WeakMap<object, (body: unknown) => string>();
  return {
    compile: (schema) => {
      let serialize = compiled.get(schema as object);
      if (serialize === undefined) {
        serialize = fastJson(withoutRequired(schema) as Parameters<typeof fastJson>[0]) as (body: unknown) => string;
        compiled.set(schema as object, serialize);
      }
      return serialize;
    },
  };
}

export interface SchemaValidator {
  /** Compiles a JSON schema (a TypeBox schema included); validation coerces the data in place. */
  compile(schema: unknown): ValidateFunction;
  /** The errors of a failed validation as one line. */
  errorsText(errors: ErrorObject[] | null | undefined): string;
}

const NUMERIC = new Set(['integer', 'number']);
/** The strings a numeric field takes (a query parameter, a header): decimal digits, no hex, blanks or "Infinity". */
const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** Keywords whose values map names to schemas (a property may be called `type` or `default`). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

export function createSchemaValidator(): SchemaValidator {
  // ajv is CommonJS: its class is the default export's `default` under ESM interop.
  const Ajv = (AjvModule as unknown as { default: typeof AjvModule }).default ?? AjvModule;
  const ajv = new (Ajv as unknown as new (options: object) => import('ajv').default)({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, allErrors: false });
  const finite: SchemaValidateFunction = (_schema: boolean, data: unknown): boolean => {
    if (typeof data !== 'number' || Number.isFinite(data)) return true;
    finite.errors = [{ keyword: 'finite', message: 'must be a finite number', params: {} }];
    return false;
  };
  ajv.addKeyword({ keyword: 'finite', schemaType: 'boolean', errors: true, validate: finite });
  const jsonNumber: SchemaValidateFunction = (_schema: boolean, data: unknown): boolean => {
    if (typeof data === 'number') return true;
    jsonNumber.errors = [{ keyword: 'jsonNumber', message: 'must be a JSON number', params: {} }];
    return false;
  };
  ajv.addKeyword({ keyword: 'jsonNumber', schemaType: 'boolean', errors: true, validate: jsonNumber });
  const decimalText: SchemaValidateFunction = (type: string, data: unknown): boolean => {
    if (typeof data !== 'string' || (type === 'integer' ? INTEGER_TEXT : NUMBER_TEXT).test(data)) return true;
    decimalText.errors = [{ keyword: 'decimalText', message: `must be ${type}`, params: { type } }];
    return false;
  };
  ajv.addKeyword({ keyword: 'decimalText', schemaType: 'string', errors: true, validate: decimalText });
  const compiled = new WeakMap<object, ValidateFunction>();
  return {
    compile: (schema) => {
      let validate = compiled.get(schema as object);
      if (validate === undefined) {
        validate = ajv.compile(forValidation(schema) as object);
        compiled.set(schema as object, validate);
      }
      return validate;
    },
    errorsText: (errors) => ajv.errorsText(errors),
  };
}

/**
 * A copy of `schema` without `required` lists, for the serializer: fast-json-stringify writes an
 * object's required properties before its optional ones (and throws on a missing required one),
 * which would move an optional field declared in the middle of a reply. Without the lists it
 * writes every declared property in declaration order and leaves out the undefined ones, as
 * JSON.stringify does. Validation and the OpenAPI document keep the lists.
 */
function withoutRequired(schema: unknown): unknown {
  return rewriteSchema(schema, (copy) => {
    if (Array.isArray(copy.required)) delete copy.required;
  });
}

const admits = (schema: unknown, test: (type: string) => boolean): boolean => {
  const type = (schema as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? test(type) : Array.isArray(type) && type.some((t) => test(t as string));
};

/**
 * The copy of `schema` that ajv compiles: `finite: true` beside every `type` that admits a number,
 * and in an `anyOf` of string and numeric branches the numeric ones first, each behind `jsonNumber`.
 */
function forValidation(schema: unknown): unknown {
  const checked = rewriteSchema(schema, (copy) => {
    if (admits(copy, (t) => NUMERIC.has(t))) copy.finite = true;
    const branches = copy.anyOf;
    if (!Array.isArray(branches) || !branches.some((b) => admits(b, (t) => t === 'string'))) return;
    const numeric = branches.filter((b) => admits(b, (t) => NUMERIC.has(t)));
    if (numeric.length === 0) return;
    copy.anyOf = [...numeric.map((b) => ({ allOf: [{ jsonNumber: true }, b] })), ...branches.filter((b) => !numeric.includes(b))];
  });
  // A second pass, so the first one's `anyOf` still sees each branch's own `type`.
  return rewriteSchema(checked, withDecimalText);
}

/**
 * A numeric-only field's schema behind `decimalText`, which sees a string before ajv coerces it
 * (its test, `s == +s`, reads "0x10", " 12", "1e3" and "12.0" as numbers: `limit=0x10` was 16).
 * The field's `default` moves to the wrapper, where ajv's `useDefaults` reads it.
 */
function withDecimalText(copy: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!admits(copy, (t) => NUMERIC.has(t)) || admits(copy, (t) => t === 'string')) return undefined;
  const type = admits(copy, (t) => t === 'number') ? 'number' : 'integer';
  const wrapper: Record<string, unknown> = { allOf: [{ decimalText: type }, copy] };
  if ('default' in copy) {
    wrapper.default = copy.default;
    delete copy.default;
  }
  return wrapper;
}

/**
 * A deep copy of `schema` in which `edit` sees every schema object once its children are copied
 * and may return a schema to stand in its place; data keywords are kept as they are.
 */
function rewriteSchema(schema: unknown, edit: (copy: Record<string, unknown>) => Record<string, unknown> | undefined | void): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rewriteSchema(item, edit));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, rewriteSchema(sub, edit)]));
    } else out[key] = rewriteSchema(value, edit);
  }
  return edit(out) ?? out;
}
