import { serialize } from "pg-protocol";

// Postgres wire-protocol constants and the few messages this server sends.
// Reference: https://www.postgresql.org/docs/current/protocol-message-formats.html

/** Untyped "request codes" that can precede (or replace) the StartupMessage. */
export const SSL_REQUEST_CODE = 80877103;
export const GSSENC_REQUEST_CODE = 80877104;
export const CANCEL_REQUEST_CODE = 80877102;

/** Major protocol version 3; the minor version lives in the low 16 bits. */
export const PROTOCOL_MAJOR_3 = 3;

/** Frontend (client → server) message type bytes we care about. */
export const MSG_QUERY = 0x51; // 'Q'
export const MSG_PARSE = 0x50; // 'P'
export const MSG_SYNC = 0x53; // 'S'
export const MSG_TERMINATE = 0x58; // 'X'
export const MSG_COPY_FAIL = 0x66; // 'f'
export const MSG_FUNCTION_CALL = 0x46; // 'F'

/** Backend (server → client) message type bytes we care about. */
export const MSG_READY_FOR_QUERY = 0x5a; // 'Z'
export const MSG_ERROR_RESPONSE = 0x45; // 'E'
export const MSG_COPY_IN_RESPONSE = 0x47; // 'G'
export const MSG_COPY_BOTH_RESPONSE = 0x57; // 'W'
export const MSG_AUTHENTICATION = 0x52; // 'R'
export const MSG_PARAMETER_STATUS = 0x53; // 'S'
export const MSG_BACKEND_KEY_DATA = 0x4b; // 'K'

/** Transaction status carried by ReadyForQuery. */
export const TX_IDLE = 0x49; // 'I'

/** Anything larger is a framing error, not a real message (Postgres caps at 1 GB too). */
export const MAX_MESSAGE_LENGTH = 1 << 30;

/**
 * ErrorResponse ('E'), used to tell a client why we are about to drop it. (pg-protocol
 * serialises only the frontend's messages: this backend one is built here.)
 */
export function errorResponse(severity: "ERROR" | "FATAL", code: string, message: string): Buffer {
  const field = (tag: string, value: string) => `${tag}${value}\0`;
  const body = Buffer.from(
    `${field("S", severity)}${field("V", severity)}${field("C", code)}${field("M", message)}\0`,
    "utf8",
  );
  return backendMessage(MSG_ERROR_RESPONSE, body);
}

/** A backend message's bytes: type, length (which counts itself), body. */
export function backendMessage(type: number, body: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header[0] = type;
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** The whole backend messages in `bytes` (a complete stretch of a server's stream), in order. */
export function backendMessages(bytes: Buffer): { type: number; body: Buffer }[] {
  const messages: { type: number; body: Buffer }[] = [];
  for (let at = 0; at + 5 <= bytes.length; ) {
    const end = at + 1 + bytes.readInt32BE(at + 1);
    messages.push({ type: bytes[at] as number, body: bytes.subarray(at + 5, end) });
    at = end;
  }
  return messages;
}

/** The frontend messages this server sends PGlite itself, serialised by pg-protocol. */
export const syncMessage = (): Uint8Array => serialize.sync();
export const queryMessage = (sql: string): Uint8Array => serialize.query(sql);
export const copyFailMessage = (reason: string): Uint8Array => serialize.copyFail(reason);

/**
 * One statement with text parameters through the extended protocol, as a driver sends it:
 * Parse (unnamed, types left to the server), Bind (every parameter and result in text),
 * Describe the portal (for the row description), Execute (all rows), Sync.
 */
export function extendedQueryMessages(sql: string, params: (string | null)[]): Uint8Array {
  return Buffer.concat([
    serialize.parse({ text: sql }),
    serialize.bind({ values: params }),
    serialize.describe({ type: "P" }),
    serialize.execute({ rows: 0 }),
    serialize.sync(),
  ]);
}
