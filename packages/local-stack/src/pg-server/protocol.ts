// Postgres wire-protocol constants and the few messages this server builds itself.
// Reference: https://www.postgresql.org/docs/current/protocol-message-formats.html

/** Untyped "request codes" that can precede (or replace) the StartupMessage. */
export const SSL_REQUEST_CODE = 80877103;
export const GSSENC_REQUEST_CODE = 80877104;
export const CANCEL_REQUEST_CODE = 80877102;

/** Major protocol version 3; the minor version lives in the low 16 bits. */
export const PROTOCOL_MAJOR_3 = 3;

/** Frontend (client → server) message type bytes we care about. */
export const MSG_QUERY = 0x51; // 'Q'
export const MSG_SYNC = 0x53; // 'S'
export const MSG_TERMINATE = 0x58; // 'X'
export const MSG_COPY_FAIL = 0x66; // 'f'

/** Backend (server → client) message type bytes we care about. */
export const MSG_READY_FOR_QUERY = 0x5a; // 'Z'
export const MSG_ERROR_RESPONSE = 0x45; // 'E'
export const MSG_COPY_IN_RESPONSE = 0x47; // 'G'
export const MSG_COPY_BOTH_RESPONSE = 0x57; // 'W'

/** Transaction status carried by ReadyForQuery. */
export const TX_IDLE = 0x49; // 'I'

/** Anything larger is a framing error, not a real message (Postgres caps at 1 GB too). */
export const MAX_MESSAGE_LENGTH = 1 << 30;

/** A typed message: 1 type byte, int32 length (including itself), then the body. */
function typedMessage(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = type;
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

export function syncMessage(): Uint8Array {
  return typedMessage(MSG_SYNC, Buffer.alloc(0));
}

export function queryMessage(sql: string): Uint8Array {
  return typedMessage(MSG_QUERY, Buffer.from(`${sql}\0`, "utf8"));
}

export function copyFailMessage(reason: string): Uint8Array {
  return typedMessage(MSG_COPY_FAIL, Buffer.from(`${reason}\0`, "utf8"));
}

/** ErrorResponse ('E'), used to tell a client why we are about to drop it. */
export function errorResponse(severity: "ERROR" | "FATAL", code: string, message: string): Buffer {
  const field = (tag: string, value: string) => `${tag}${value}\0`;
  const body = `${field("S", severity)}${field("V", severity)}${field("C", code)}${field("M", message)}\0`;
  return typedMessage(MSG_ERROR_RESPONSE, Buffer.from(body, "utf8"));
}

/**
 * One statement with text parameters through the extended protocol, as a driver sends it:
 * Parse (unnamed, types left to the server), Bind (every parameter and result in text),
 * Describe the portal (for the row description), Execute (all rows), Sync.
 */
export function extendedQueryMessages(sql: string, params: (string | null)[]): Uint8Array {
  const parse = Buffer.concat([Buffer.from(`\0${sql}\0`, "utf8"), int16(0)]);
  const values = params.map((value) => {
    if (value === null) return int32(-1);
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([int32(bytes.length), bytes]);
  });
  const bind = Buffer.concat([
    Buffer.from("\0\0", "utf8"), // unnamed portal, unnamed statement
    int16(0), // no parameter format codes: all text
    int16(params.length),
    ...values,
    int16(0), // no result format codes: all text
  ]);
  return Buffer.concat([
    typedMessage(0x50, parse), // 'P'
    typedMessage(0x42, bind), // 'B'
    typedMessage(0x44, Buffer.from("P\0", "utf8")), // 'D' portal
    typedMessage(0x45, Buffer.concat([Buffer.from("\0", "utf8"), int32(0)])), // 'E', no row limit
    syncMessage(),
  ]);
}

function int16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(value);
  return b;
}

function int32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(value);
  return b;
}
