import type { RawRequest } from "./raw-request.ts";

/**
 * Hostile inputs for every operation of the OpenAPI document (`/openapi.json`), generated
 * from the operation's own parameters and body schema, so a route added later is covered
 * without anyone writing its cases.
 *
 * Every case says whether a 2xx is acceptable. It is not when the request breaks the
 * document's contract: malformed JSON, a wrong type, a missing required field, a value out
 * of the schema's bounds, a wrong content type, a body over the limit, an id that does not
 * exist. For value mutations the answer comes from validating the mutated body against the
 * operation's schema (a small JSON Schema checker below, never stricter than the service's
 * zod schemas: it skips formats and refinements). What the schema allows (an unknown field
 * on a lenient body, a NUL or a lone surrogate inside a string, a huge but unbounded array)
 * may be accepted or refused — but never with a 5xx.
 */

// ---------------------------------------------------------------------------------------
// The OpenAPI document

export type JsonSchema = { [keyword: string]: any } | boolean;

interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: JsonSchema;
}

interface OperationObject {
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface Operation {
  /** `POST /api/datasets/{id}/search` */
  key: string;
  method: string;
  path: string;
  security: "apiKey" | "adminToken" | null;
  pathParams: ParameterObject[];
  queryParams: ParameterObject[];
  body: { mediaType: "json" | "multipart"; schema: JsonSchema } | null;
  /** a GET whose parameters may also come as a JSON body (E6, E7), as its description says */
  readsGetBody: boolean;
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

export function listOperations(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const params = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      const mediaTypes = Object.keys(content);
      let body: Operation["body"] = null;
      if (content["application/json"]) {
        body = { mediaType: "json", schema: content["application/json"].schema ?? true };
      } else if (content["multipart/form-data"]) {
        body = { mediaType: "multipart", schema: content["multipart/form-data"].schema ?? true };
      } else if (mediaTypes.length > 0) {
        throw new Error(
          `${method.toUpperCase()} ${path}: no bad-input generator for ${mediaTypes.join(", ")}`,
        );
      }
      const scheme = op.security?.[0] ? Object.keys(op.security[0])[0] : undefined;
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        security: scheme === "apiKey" || scheme === "adminToken" ? scheme : null,
        pathParams: params.filter((p) => p.in === "path"),
        queryParams: params.filter((p) => p.in === "query"),
        body,
        readsGetBody: method === "get" && /JSON body/i.test(op.description ?? ""),
      });
    }
  }
  return operations;
}

// ---------------------------------------------------------------------------------------
// A JSON Schema checker for the keywords the document uses

export class Schemas {
  constructor(private readonly doc: OpenApiDocument) {}

  resolve(schema: JsonSchema | undefined): JsonSchema {
    let s = schema;
    for (let hops = 0; s && typeof s === "object" && typeof s.$ref === "string"; hops++) {
      if (hops > 32) throw new Error(`$ref loop at ${s.$ref}`);
      const name = String(s.$ref).replace("#/components/schemas/", "");
      s = this.doc.components?.schemas?.[name];
      if (s === undefined) throw new Error(`unknown $ref ${name}`);
    }
    return s ?? true;
  }

  conforms(schema: JsonSchema | undefined, value: unknown): boolean {
    const s = this.resolve(schema);
    if (s === true) return true;
    if (s === false) return false;
    if (s.anyOf && !s.anyOf.some((b: JsonSchema) => this.conforms(b, value))) return false;
    // oneOf as anyOf: the service's unions accept a value that matches any branch.
    if (s.oneOf && !s.oneOf.some((b: JsonSchema) => this.conforms(b, value))) return false;
    if (s.allOf && !s.allOf.every((b: JsonSchema) => this.conforms(b, value))) return false;
    if ("const" in s && !sameJson(s.const, value)) return false;
    if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => sameJson(e, value))) return false;
    if (s.type !== undefined) {
      const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
      if (!types.some((t) => hasType(t, value))) return false;
    }
    if (typeof value === "string") {
      if (typeof s.minLength === "number" && value.length < s.minLength) return false;
      if (typeof s.maxLength === "number" && value.length > s.maxLength) return false;
      if (typeof s.pattern === "string" && !new RegExp(s.pattern).test(value)) return false;
    }
    if (typeof value === "number") {
      if (s.type !== undefined && !Number.isFinite(value)) return false;
      if (typeof s.minimum === "number" && value < s.minimum) return false;
      if (typeof s.maximum === "number" && value > s.maximum) return false;
      if (typeof s.exclusiveMinimum === "number" && value <= s.exclusiveMinimum) return false;
      if (typeof s.exclusiveMaximum === "number" && value >= s.exclusiveMaximum) return false;
    }
    if (Array.isArray(value)) {
      if (typeof s.minItems === "number" && value.length < s.minItems) return false;
      if (typeof s.maxItems === "number" && value.length > s.maxItems) return false;
      if (s.items !== undefined && !value.every((v) => this.conforms(s.items, v))) return false;
    }
    if (isObject(value)) {
      for (const key of s.required ?? []) if (!Object.hasOwn(value, key)) return false;
      for (const [key, v] of Object.entries(value)) {
        const declared = s.properties?.[key];
        if (declared !== undefined) {
          if (!this.conforms(declared, v)) return false;
        } else if (s.additionalProperties === false) {
          return false;
        } else if (s.additionalProperties !== undefined) {
          if (!this.conforms(s.additionalProperties, v)) return false;
        }
      }
    }
    return true;
  }

  /** The JSON types a schema admits; null when it does not constrain the type. */
  types(schema: JsonSchema | undefined): Set<string> | null {
    const s = this.resolve(schema);
    if (s === true || s === false) return s ? null : new Set();
    const branches = s.anyOf ?? s.oneOf;
    if (branches) {
      const all = new Set<string>();
      for (const b of branches) {
        const t = this.types(b);
        if (t === null) return null;
        for (const x of t) all.add(x);
      }
      return all;
    }
    if (s.type !== undefined) return new Set(Array.isArray(s.type) ? s.type : [s.type]);
    if (Array.isArray(s.enum)) return new Set(s.enum.map(jsonType));
    if ("const" in s) return new Set([jsonType(s.const)]);
    return null;
  }

  /** The schema that describes `value`: the union branch it matches, or the schema itself. */
  branch(schema: JsonSchema | undefined, value: unknown): JsonSchema {
    const s = this.resolve(schema);
    if (typeof s === "object" && (s.anyOf || s.oneOf)) {
      const match = (s.anyOf ?? s.oneOf).find((b: JsonSchema) => this.conforms(b, value));
      if (match !== undefined) return this.branch(match, value);
    }
    return s;
  }

  /** A value that satisfies the schema's required parts (for an operation with no fixture). */
  sample(schema: JsonSchema | undefined): unknown {
    const s = this.resolve(schema);
    if (s === true || s === false) return {};
    if ("const" in s) return s.const;
    if (Array.isArray(s.enum)) return s.enum[0];
    const branches = s.anyOf ?? s.oneOf;
    if (branches) {
      return this.sample(branches.find((b: JsonSchema) => !this.types(b)?.has("null")) ?? {});
    }
    const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
    switch (type) {
      case "string":
        return "x".repeat(Math.max(1, s.minLength ?? 1));
      case "integer":
      case "number":
        return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
      case "boolean":
        return true;
      case "array":
        return Array.from({ length: s.minItems ?? 0 }, () => this.sample(s.items));
      default: {
        const out: Record<string, unknown> = {};
        for (const key of s.required ?? []) out[key] = this.sample(s.properties?.[key]);
        return out;
      }
    }
  }
}

function hasType(type: string, value: unknown): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      // zod's .int() takes safe integers only
      return typeof value === "number" && Number.isSafeInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    default:
      return true;
  }
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "number" ? "number" : typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return a === b;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false; // nested too deep to write: not one of the schema's small constants
  }
}

// ---------------------------------------------------------------------------------------
// JSON text with values JSON.stringify cannot write (1e309, 10,000 levels of nesting)

/** JSON text inserted as is where a value would go. */
export class Raw {
  constructor(readonly text: string) {}
}

const RAW_TAG = "@@raw-json@@";

export function jsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) =>
    v instanceof Raw ? `${RAW_TAG}${raws.push(v.text) - 1}${RAW_TAG}` : v,
  );
  return text.replace(
    new RegExp(`"${RAW_TAG}(\\d+)${RAW_TAG}"`, "g"),
    (_m, i: string) => raws[Number(i)] ?? "",
  );
}

function clone<T>(value: T): T {
  if (value instanceof Raw || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty, so that a key named "__proto__" stays an ordinary key
    Object.defineProperty(out, k, {
      value: clone(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out as T;
}

type Path = (string | number)[];

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = clone(root);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  Object.defineProperty(node, path.at(-1)!, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return copy;
}

function deleteAt(root: unknown, path: Path): unknown {
  const copy = clone(root);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  delete node[path.at(-1)!];
  return copy;
}

function label(path: Path): string {
  return path.reduce<string>(
    (out, p) => (typeof p === "number" ? `${out}[${p}]` : `${out}.${p}`),
    "body",
  );
}

// ---------------------------------------------------------------------------------------
// The values

export const DEEP_LEVELS = 10_000;
export const HUGE_STRING_CHARS = 1024 * 1024 + 1;
export const HUGE_ARRAY_ITEMS = 100_000;

const deepArray = () => new Raw(`${"[".repeat(DEEP_LEVELS)}${"]".repeat(DEEP_LEVELS)}`);
const deepObject = () => new Raw(`${'{"a":'.repeat(DEEP_LEVELS)}null${"}".repeat(DEEP_LEVELS)}`);

let hugeString: string | undefined;
/**
 * Over 1 MiB of prose-like text (a few hundred words in a scrambled order). Not a million
 * distinct words: that is a keyword-index benchmark, not bad input (1 MiB of distinct
 * tokens takes E5 about 26 s to ingest on the embedded database, past the hang deadline).
 */
function huge(): string {
  if (hugeString === undefined) {
    const vocabulary = Array.from({ length: 400 }, (_, i) => `word${i.toString(36)}`);
    const words: string[] = [];
    let length = 0;
    for (let i = 0, x = 7; length < HUGE_STRING_CHARS; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const word = `${vocabulary[x % vocabulary.length]}${i % 12 === 11 ? ". " : " "}`;
      words.push(word);
      length += word.length;
    }
    hugeString = words.join("").slice(0, HUGE_STRING_CHARS);
  }
  return hugeString;
}

const WRONG_TYPES: [string, unknown][] = [
  ["a string", "wrong type"],
  ["a number", 12345],
  ["a boolean", true],
  ["null", null],
  ["an array", []],
  ["an object", {}],
];

/** Numbers as JSON text: beyond float range (JSON.parse gives ±Infinity), beyond 2^53, … */
const NUMBERS: [string, string][] = [
  ["-1", "-1"],
  ["1.5", "1.5"],
  ["1e309", "1e309"],
  ["-1e309", "-1e309"],
  ["2^53+1", "9007199254740993"],
];

const BAD_PATH_SEGMENTS: [string, string][] = [
  ["an unknown id", "does-not-exist-0"],
  ["an unknown uuid", "00000000-0000-4000-8000-000000000000"],
  ["129 characters", "x".repeat(129)],
  ["8,000 characters", "y".repeat(8000)],
  ["%00", "%00"],
  ["a NUL inside", "abc%00def"],
  ["a malformed escape", "%E0%A4%A"],
  ["invalid UTF-8", "%FF%FE"],
  ["a UTF-8 lone surrogate", "%ED%A0%80"],
  ["an encoded slash", "a%2Fb"],
  ["SQL", "%27%20OR%20%271%27%3D%271"],
  ["non-ASCII", "%C3%BC%F0%9F%98%80"],
];

/** For parameters whose example is a number (row ids): numbers that are not ids. */
const BAD_NUMERIC_SEGMENTS: [string, string][] = [
  ["-1", "-1"],
  ["0", "0"],
  ["1.5", "1.5"],
  ["1e3", "1e3"],
  ["20 digits", "99999999999999999999"],
  ["2^53+1", "9007199254740993"],
];

const BAD_QUERY_VALUES: [string, string][] = [
  ["-1", "-1"],
  ["abc", "abc"],
  ["1.5", "1.5"],
  ["1e309", "1e309"],
  ["20 digits", "99999999999999999999"],
  ["empty", ""],
  ["%00", "%00"],
  ["a malformed escape", "%E0%A4%A"],
  ["10,000 characters", "9".repeat(10_000)],
  ["malformed JSON", "%7Bbad"],
  ["a JSON array", "%5B%5D"],
  ["JSON with a NUL", encodeURIComponent('{"year":"\\u0000"}')],
  ["JSON with an unknown operator", encodeURIComponent('{"year":{"$bad":1}}')],
  ["JSON nested 1,000 levels", encodeURIComponent(`${'{"a":'.repeat(1000)}1${"}".repeat(1000)}`)],
];

// ---------------------------------------------------------------------------------------
// Cases

export type CaseKind =
  | "path-param"
  | "query-param"
  | "malformed-json"
  | "wrong-type"
  | "missing-required"
  | "unknown-field"
  | "string"
  | "number"
  | "array"
  | "deep-nesting"
  | "object-key"
  | "content-type"
  | "oversize"
  | "get-body"
  | "multipart";

/** Kinds that break the contract whatever the operation: a 2xx is never acceptable. */
const NEVER_ACCEPTED = new Set<CaseKind>([
  "malformed-json",
  "wrong-type",
  "missing-required",
  "content-type",
  "oversize",
  "path-param",
]);

export interface BadInputCase {
  operation: string;
  kind: CaseKind;
  label: string;
  request: RawRequest;
  /** a 2xx is an acceptable answer (the request is within the document's contract) */
  acceptable2xx: boolean;
}

export interface FormPart {
  name: string;
  value: string | Uint8Array;
  filename?: string;
  contentType?: string;
}

export interface CaseContext {
  doc: OpenApiDocument;
  /** the Authorization header for the operation's security scheme */
  authorization(op: Operation): string | null;
  /** a value of the path parameter that exists for the caller (not encoded) */
  pathValue(op: Operation, param: string): string;
  /** a valid body: a JSON value, or the parts of a multipart form; called once per case */
  validBody(op: Operation): unknown;
  /** bodies over this many bytes are refused (every route but the upload) */
  maxJsonBodyBytes: number;
}

export function generateCases(ctx: CaseContext, op: Operation): BadInputCase[] {
  return new CaseWriter(ctx, op).all();
}

class CaseWriter {
  private readonly schemas: Schemas;
  private readonly cases: BadInputCase[] = [];

  constructor(
    private readonly ctx: CaseContext,
    private readonly op: Operation,
  ) {
    this.schemas = new Schemas(ctx.doc);
  }

  all(): BadInputCase[] {
    this.pathCases();
    this.queryCases();
    if (this.op.body?.mediaType === "json") this.jsonBodyCases(this.op.body.schema);
    else if (this.op.body?.mediaType === "multipart") this.multipartCases(this.op.body.schema);
    else this.bodylessCases();
    this.oversizeCases();
    return this.cases;
  }

  private add(
    kind: CaseKind,
    label: string,
    request: Partial<RawRequest>,
    acceptable2xx: boolean,
  ): void {
    if (acceptable2xx && NEVER_ACCEPTED.has(kind)) {
      throw new Error(`${this.op.key} — ${label}: a ${kind} case cannot be acceptable`);
    }
    const headers: Record<string, string> = {};
    const auth = this.ctx.authorization(this.op);
    if (auth) headers.authorization = auth;
    this.cases.push({
      operation: this.op.key,
      kind,
      label,
      acceptable2xx,
      request: {
        method: this.op.method,
        path: request.path ?? this.concretePath(),
        headers: { ...headers, ...request.headers },
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.chunked ? { chunked: true } : {}),
      },
    });
  }

  /** The operation's path with real ids, one parameter optionally replaced by an encoded segment. */
  private concretePath(replace?: { param: string; segment: string }): string {
    return this.op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
      replace?.param === name
        ? replace.segment
        : encodeURIComponent(this.ctx.pathValue(this.op, name)),
    );
  }

  /** The valid request body, as the operation takes it. */
  private validRequest(): Partial<RawRequest> {
    if (this.op.body?.mediaType === "json") {
      return {
        body: jsonText(this.ctx.validBody(this.op)),
        headers: { "content-type": "application/json" },
      };
    }
    if (this.op.body?.mediaType === "multipart") {
      const boundary = "----badInputBoundary7MA4YWxk";
      return {
        body: multipart(this.ctx.validBody(this.op) as FormPart[], boundary),
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      };
    }
    return {};
  }

  private pathCases(): void {
    for (const param of this.op.pathParams) {
      const schema = this.schemas.resolve(param.schema);
      const numeric = typeof schema === "object" && /^\d+$/.test(String(schema.example ?? ""));
      const segments = numeric
        ? [...BAD_PATH_SEGMENTS, ...BAD_NUMERIC_SEGMENTS]
        : BAD_PATH_SEGMENTS;
      for (const [what, segment] of segments) {
        // Otherwise valid: only the id is wrong, and no such id exists.
        this.add(
          "path-param",
          `path ${param.name}: ${what}`,
          { ...this.validRequest(), path: this.concretePath({ param: param.name, segment }) },
          false,
        );
      }
    }
  }

  private queryCases(): void {
    const base = this.concretePath();
    for (const param of this.op.queryParams) {
      for (const [what, encoded] of BAD_QUERY_VALUES) {
        const decoded = safeDecode(encoded);
        const coerced = this.coerceParam(param.schema, decoded);
        this.add(
          "query-param",
          `query ${param.name}: ${what}`,
          { ...this.validRequest(), path: `${base}?${param.name}=${encoded}` },
          this.schemas.conforms(param.schema, coerced),
        );
      }
      this.add(
        "query-param",
        `query ${param.name}: given twice`,
        { ...this.validRequest(), path: `${base}?${param.name}=1&${param.name}=2` },
        true,
      );
    }
    this.add(
      "query-param",
      "an unknown query parameter",
      { ...this.validRequest(), path: `${base}?unexpected_param=1` },
      true,
    );
  }

  /** Query values arrive as text; numeric parameters are coerced the way zod's coerce does. */
  private coerceParam(schema: JsonSchema | undefined, value: string): unknown {
    const types = this.schemas.types(schema);
    if (types && !types.has("string") && (types.has("number") || types.has("integer"))) {
      return Number(value);
    }
    return value;
  }

  // -- JSON bodies ------------------------------------------------------------------------

  private jsonBodyCases(schema: JsonSchema): void {
    const json = { "content-type": "application/json" };
    const validText = jsonText(this.ctx.validBody(this.op));
    const send = (kind: CaseKind, what: string, body: unknown) => {
      const text = jsonText(body);
      this.add(kind, what, { body: text, headers: json }, this.conformsText(schema, text));
    };

    const malformed: [string, string][] = [
      ["an empty body", ""],
      ["an unclosed object", "{"],
      ["a missing value", '{"a":}'],
      ["single quotes", "{'a': 1}"],
      ["a trailing comma", `${validText.slice(0, -1)},}`],
      ["a truncated body", validText.slice(0, Math.ceil(validText.length / 2))],
      ["trailing garbage", `${validText}garbage`],
      ["an extra brace", `${validText}}`],
      ["NaN", '{"a":NaN}'],
      ["a comment", `/* comment */${validText}`],
      ["a raw NUL byte in a string", '{"a":"x\u0000y"}'],
      ["a raw control character in a string", '{"a":"x\u0001y"}'],
      ["undefined", "undefined"],
    ];
    for (const [what, text] of malformed) {
      this.add("malformed-json", `malformed JSON: ${what}`, { body: text, headers: json }, false);
    }
    // Bytes that are not UTF-8 inside a string: the decoder may replace them; not a 5xx.
    const bytes = Buffer.concat([
      Buffer.from(validText.slice(0, -1)),
      Buffer.from(',"bad_utf8":"'),
      Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80]),
      Buffer.from('"}'),
    ]);
    this.add(
      "string",
      "invalid UTF-8 bytes in a string",
      { body: new Uint8Array(bytes), headers: json },
      this.conformsText(schema, bytes.toString("utf8")),
    );

    const valid = this.ctx.validBody(this.op);
    for (const node of this.walk(schema, valid, [])) {
      const at = label(node.path);
      const types = this.schemas.types(node.schema);
      const admits = (t: string) => types === null || types.has(t);
      const mutate = (kind: CaseKind, what: string, value: unknown) =>
        send(kind, `${at}: ${what}`, setAt(valid, node.path, value));

      for (const [what, value] of WRONG_TYPES) {
        if (!this.schemas.conforms(node.schema, value)) mutate("wrong-type", what, value);
      }
      if (admits("string")) {
        const s = this.schemas.resolve(this.schemas.branch(node.schema, "x"));
        mutate("string", "an empty string", "");
        mutate("string", "a lone surrogate", "before\ud800after");
        mutate("string", "a NUL", "before\u0000after");
        mutate("string", `${HUGE_STRING_CHARS} characters`, huge());
        if (typeof s === "object" && typeof s.maxLength === "number") {
          mutate("string", `maxLength + 1 (${s.maxLength + 1})`, "z".repeat(s.maxLength + 1));
        }
      }
      if (admits("number") || admits("integer")) {
        for (const [what, text] of NUMBERS) mutate("number", what, new Raw(text));
      }
      if (admits("array")) {
        const s = this.schemas.resolve(this.schemas.branch(node.schema, []));
        const item = Array.isArray(node.value) && node.value.length > 0 ? node.value[0] : "x";
        mutate("array", "an empty array", []);
        mutate("array", `${HUGE_ARRAY_ITEMS} items`, new Array(HUGE_ARRAY_ITEMS).fill(item));
        if (typeof s === "object" && typeof s.maxItems === "number" && s.maxItems < 50_000) {
          mutate("array", `maxItems + 1 (${s.maxItems + 1})`, new Array(s.maxItems + 1).fill(item));
        }
      }
      if (node.path.length <= 1 || admits("object") || admits("array")) {
        mutate("deep-nesting", `${DEEP_LEVELS} nested objects`, deepObject());
        if (node.path.length <= 1)
          mutate("deep-nesting", `${DEEP_LEVELS} nested arrays`, deepArray());
      }
      if (isObject(node.value)) {
        const s = this.schemas.resolve(node.schema);
        for (const key of (typeof s === "object" ? s.required : undefined) ?? []) {
          if (Object.hasOwn(node.value, key)) {
            send(
              "missing-required",
              `${at}: without required '${key}'`,
              deleteAt(valid, [...node.path, key]),
            );
          }
        }
        const withKey = (key: string, value: unknown) => setAt(valid, [...node.path, key], value);
        send("unknown-field", `${at}: an unknown field`, withKey("unexpected_field", "x"));
        // zod drops a "__proto__" key from a record unchecked (it never pollutes): ignored,
        // like an unknown field, so either answer is fine — but not a 5xx.
        this.add(
          "object-key",
          `${at}: a '__proto__' key`,
          { body: jsonText(withKey("__proto__", { polluted: true })), headers: json },
          true,
        );
        send("object-key", `${at}: a key with a NUL`, withKey("k\u0000ey", "x"));
        send("object-key", `${at}: a key with a lone surrogate`, withKey("k\ud800ey", "x"));
        if (node.path.length === 0) {
          send("object-key", `${at}: a 10,000-character key`, withKey("k".repeat(10_000), "x"));
        }
      }
    }

    // The right JSON under another media type is refused: the route declares only JSON.
    const boundary = "----badInputBoundary";
    const wrongTypes: [string, string, string | Uint8Array][] = [
      ["text/plain", "text/plain", validText],
      ["application/xml", "application/xml", "<a>1</a>"],
      ["application/jsonp", "application/jsonp", validText],
      ["form-urlencoded", "application/x-www-form-urlencoded", "a=1&b=2"],
      [
        "multipart/form-data",
        `multipart/form-data; boundary=${boundary}`,
        multipart([{ name: "json", value: validText }], boundary),
      ],
    ];
    for (const [what, type, body] of wrongTypes) {
      this.add(
        "content-type",
        `Content-Type ${what}`,
        { body, headers: { "content-type": type } },
        false,
      );
    }
    this.add(
      "content-type",
      "no Content-Type",
      { body: new Uint8Array(Buffer.from(validText)) },
      false,
    );
  }

  private conformsText(schema: JsonSchema, text: string): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return false;
    }
    return this.schemas.conforms(schema, parsed);
  }

  /** Every value in `value` that the schema describes, depth first, the root first. */
  private *walk(
    schema: JsonSchema,
    value: unknown,
    path: Path,
  ): Generator<{
    path: Path;
    schema: JsonSchema;
    value: unknown;
  }> {
    yield { path, schema, value };
    if (path.length >= 6) return;
    const s = this.schemas.resolve(this.schemas.branch(schema, value));
    if (typeof s !== "object") return;
    if (isObject(value)) {
      for (const [key, v] of Object.entries(value)) {
        const sub =
          s.properties?.[key] ??
          (typeof s.additionalProperties === "object" ? s.additionalProperties : undefined);
        if (sub !== undefined) yield* this.walk(sub, v, [...path, key]);
      }
    } else if (Array.isArray(value) && value.length > 0 && s.items !== undefined) {
      yield* this.walk(s.items, value[0], [...path, 0]);
    }
  }

  // -- Routes without a body ----------------------------------------------------------------

  private bodylessCases(): void {
    const json = { "content-type": "application/json" };
    if (this.op.readsGetBody) {
      // E6/E7 read their parameters from a JSON body as well (docs/api.md#pagination).
      this.add("get-body", "GET body: malformed JSON", { body: "{bad", headers: json }, false);
      this.add("get-body", "GET body: an array", { body: "[1]", headers: json }, false);
      this.add("get-body", "GET body: a string", { body: '"x"', headers: json }, false);
      for (const param of this.op.queryParams) {
        for (const [what, value] of [
          ...WRONG_TYPES,
          ...NUMBERS.map(([w, t]) => [w, new Raw(t)] as [string, unknown]),
          ["a NUL", "\u0000"],
          ["a lone surrogate", "\ud800"],
          [`${DEEP_LEVELS} nested objects`, deepObject()],
          [`${DEEP_LEVELS} nested arrays`, deepArray()],
        ] as [string, unknown][]) {
          this.add(
            "get-body",
            `GET body ${param.name}: ${what}`,
            { body: jsonText({ [param.name]: value }), headers: json },
            true,
          );
        }
      }
      this.add(
        "get-body",
        "GET body: an unknown field",
        { body: '{"unexpected_field":1}', headers: json },
        true,
      );
    } else {
      // A body where none is taken is ignored or refused.
      this.add("get-body", "an unexpected JSON body", { body: '{"a":1}', headers: json }, true);
      this.add("get-body", "an unexpected malformed body", { body: "{bad", headers: json }, true);
    }
  }

  // -- multipart/form-data ------------------------------------------------------------------

  private multipartCases(schema: JsonSchema): void {
    const s = this.schemas.resolve(schema);
    if (typeof s !== "object") return;
    const boundary = "----badInputBoundaryQx3";
    const type = `multipart/form-data; boundary=${boundary}`;
    const valid = () => this.ctx.validBody(this.op) as FormPart[];
    const send = (kind: CaseKind, what: string, parts: FormPart[], acceptable: boolean) =>
      this.add(
        kind,
        what,
        { body: multipart(parts, boundary), headers: { "content-type": type } },
        acceptable,
      );
    const fieldsOf = (parts: FormPart[]) =>
      Object.fromEntries(
        parts.filter((p) => p.filename === undefined).map((p) => [p.name, p.value]),
      );

    const body = multipart(valid(), boundary);
    for (const [what, contentType, content] of [
      ["application/json", "application/json", JSON.stringify(fieldsOf(valid()))],
      ["text/plain", "text/plain", body],
      ["form-urlencoded", "application/x-www-form-urlencoded", "document_id=x&chunk_size=10"],
      ["multipart without a boundary", "multipart/form-data", body],
      ["multipart/mixed", `multipart/mixed; boundary=${boundary}`, body],
    ] as [string, string, string | Uint8Array][]) {
      this.add(
        "content-type",
        `Content-Type ${what}`,
        { body: content, headers: { "content-type": contentType } },
        false,
      );
    }
    this.add("content-type", "no Content-Type", { body }, false);

    const text = (t: string) => new Uint8Array(Buffer.from(t));
    for (const [what, content] of [
      ["garbage", text("this is not a multipart body")],
      ["an empty body", new Uint8Array(0)],
      ["no closing boundary", body.subarray(0, body.length - boundary.length - 6)],
      [
        "a part without Content-Disposition",
        text(`--${boundary}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${boundary}--\r\n`),
      ],
      [
        "a part without a name",
        text(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${boundary}--\r\n`),
      ],
      [
        "a part header without a colon",
        text(`--${boundary}\r\nbroken header\r\n\r\nx\r\n--${boundary}--\r\n`),
      ],
    ] as [string, Uint8Array][]) {
      this.add(
        "multipart",
        `malformed multipart: ${what}`,
        { body: content, headers: { "content-type": type } },
        false,
      );
    }

    for (const key of s.required ?? []) {
      send(
        "missing-required",
        `form: without required '${key}'`,
        valid().filter((p) => p.name !== key),
        false,
      );
    }
    send(
      "unknown-field",
      "form: an unknown field",
      [...valid(), { name: "unexpected_field", value: "x" }],
      true,
    );
    const first = valid()[0];
    if (first) send("multipart", `form: '${first.name}' twice`, [...valid(), first], true);

    // Each text field: values as text; the schema decides with the value as the form gives it.
    for (const [name, prop] of Object.entries<JsonSchema>(s.properties ?? {})) {
      const p = this.schemas.resolve(prop);
      if (typeof p !== "object" || p.format === "binary") continue;
      const replace = (value: string | Uint8Array) => [
        ...valid().filter((part) => part.name !== name),
        { name, value },
      ];
      const values: [string, string | Uint8Array][] = [
        ["empty", ""],
        ["a NUL", "a\u0000b"],
        ["invalid UTF-8", new Uint8Array([0x61, 0xff, 0xed, 0xa0, 0x80])],
        ["a wrong type", "wrong type"],
        ...NUMBERS,
        ["abc", "abc"],
      ];
      if (typeof p.maxLength === "number")
        values.push(["maxLength + 1", "m".repeat(p.maxLength + 1)]);
      if (typeof p.example === "string" && isJsonObjectText(p.example)) {
        // a JSON-text field (metadata): hostile JSON inside the text
        values.push(
          ["malformed JSON text", "{bad"],
          ["a JSON array", "[1]"],
          ["a nested object", '{"a":{"b":1}}'],
          ["JSON with a NUL", '{"a":"\\u0000"}'],
          ["JSON with a '__proto__' key", '{"__proto__":{"polluted":true}}'],
          [
            "JSON nested 10,000 levels",
            `${'{"a":'.repeat(DEEP_LEVELS)}1${"}".repeat(DEEP_LEVELS)}`,
          ],
          ["JSON with 1e309", '{"a":1e309}'],
        );
      }
      for (const [what, value] of values) {
        const asText = typeof value === "string" ? value : Buffer.from(value).toString("utf8");
        send(
          "multipart",
          `form ${name}: ${what}`,
          replace(value),
          this.schemas.conforms(p, this.coerceParam(p, asText)),
        );
      }
    }

    // The file itself: anything goes through the schema (binary); the service may refuse it.
    const file = valid().find((part) => part.filename !== undefined);
    if (file) {
      const withFile = (f: Partial<FormPart>) => [
        ...valid().filter((part) => part !== file && part.name !== file.name),
        { ...file, ...f },
      ];
      for (const [what, f] of [
        ["an empty file", { value: "" }],
        ["NUL bytes", { value: new Uint8Array([0, 0, 0, 104, 105, 0]) }],
        ["a path as its name", { filename: "../../etc/passwd" }],
        ["a NUL in its name", { filename: "a\u0000b.txt" }],
        ["a 1,000-character name", { filename: `${"n".repeat(1000)}.txt` }],
        ["an unknown type", { filename: "x.exe", contentType: "application/x-msdownload" }],
      ] as [string, Partial<FormPart>][]) {
        send("multipart", `form file: ${what}`, withFile(f), true);
      }
    }
  }

  // -- Over the limits ----------------------------------------------------------------------

  private oversizeCases(): void {
    // The upload's limit is 100 MB: upload.test.ts sends 101 MB, declared and chunked. (A
    // declared length with a short body cannot be tested here: the local runtime holds the
    // early 413 until the body has arrived.)
    if (this.op.body?.mediaType === "multipart") return;
    const body = oversizeJson(this.ctx.maxJsonBodyBytes);
    const headers = { "content-type": "application/json" };
    this.add("oversize", "a JSON body 1 byte over the limit", { body, headers }, false);
    if (this.op.body) {
      this.add(
        "oversize",
        "a chunked JSON body over the limit",
        { body, headers, chunked: true },
        false,
      );
    }
  }
}

let oversize: { limit: number; body: Uint8Array } | undefined;
function oversizeJson(limit: number): Uint8Array {
  if (oversize?.limit !== limit) {
    const bytes = Buffer.alloc(limit + 1, 0x61);
    bytes.write('{"pad":"', 0);
    bytes.write('"}', limit - 1);
    oversize = { limit, body: new Uint8Array(bytes) };
  }
  return oversize.body;
}

export function multipart(parts: FormPart[], boundary: string): Uint8Array {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      part.filename === undefined
        ? `form-data; name="${part.name}"`
        : `form-data; name="${part.name}"; filename="${part.filename}"`;
    const head =
      `--${boundary}\r\nContent-Disposition: ${disposition}\r\n` +
      (part.contentType ? `Content-Type: ${part.contentType}\r\n` : "") +
      "\r\n";
    chunks.push(Buffer.from(head), Buffer.from(part.value), Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return new Uint8Array(Buffer.concat(chunks));
}

function isJsonObjectText(text: string): boolean {
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

function safeDecode(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
