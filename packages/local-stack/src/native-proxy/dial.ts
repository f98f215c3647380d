import { isIP, connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { SSL_REQUEST_CODE } from "../pg-server/protocol.ts";

/** Where the native proxy's pipes connect, and whether the server is spoken to over TLS. */
export interface ServerAddress {
  host: string;
  port: number;
  /** from the URL's `sslmode`; undefined: plain TCP */
  tls?: { required: boolean; verify: boolean };
}

/**
 * The server a connection string names, with its TLS wish read as `pg` reads it: `disable`
 * (or nothing) is plain TCP, `allow`/`prefer` TLS when offered, `no-verify` TLS without
 * checking the certificate, anything else (`require`, `verify-ca`, `verify-full`, `ssl=true`)
 * TLS with a verified certificate.
 */
export function serverAddress(databaseUrl: string): ServerAddress {
  const url = new URL(databaseUrl);
  const host = decodeURIComponent(url.hostname).replace(/^\[|\]$/g, "") || "127.0.0.1";
  const port = Number(url.port || 5432);
  const ssl = url.searchParams.get("ssl");
  const mode =
    url.searchParams.get("sslmode") ?? (ssl === "true" || ssl === "1" ? "require" : "disable");
  if (mode === "disable") return { host, port };
  if (mode === "allow" || mode === "prefer")
    return { host, port, tls: { required: false, verify: true } };
  if (mode === "no-verify") return { host, port, tls: { required: true, verify: false } };
  return { host, port, tls: { required: true, verify: true } };
}

/**
 * Opens a connection to the server, ready for the client's StartupMessage (maybe paused:
 * `resume()` it after adding a "data" listener). The Neon driver
 * speaks plain Postgres inside its WebSocket (Neon's proxy adds TLS on the way to the server;
 * `forceDisablePgSSL`), so for a server that wants TLS — Neon itself — this side negotiates
 * it: SSLRequest, 'S', then a TLS session whose plaintext the pipe carries.
 */
export async function dialServer(server: ServerAddress): Promise<Socket> {
  const raw = netConnect(server.port, server.host);
  try {
    await new Promise<void>((resolve, reject) => {
      raw.once("connect", resolve);
      raw.once("error", reject);
    });
    if (!server.tls) return raw;
    const request = Buffer.alloc(8);
    request.writeInt32BE(8, 0);
    request.writeInt32BE(SSL_REQUEST_CODE, 4);
    raw.write(request);
    const answer = await new Promise<Buffer>((resolve, reject) => {
      raw.once("data", resolve);
      raw.once("close", () => reject(new Error("the server closed the connection")));
    });
    raw.removeAllListeners("data");
    raw.removeAllListeners("close");
    raw.pause();
    if (answer.length === 1 && answer[0] === 0x53 /* 'S' */) {
      const secure = tlsConnect({
        socket: raw,
        // SNI: Neon routes a connection to its endpoint by the host name.
        ...(isIP(server.host) ? {} : { servername: server.host }),
        rejectUnauthorized: server.tls.verify,
      });
      await new Promise<void>((resolve, reject) => {
        secure.once("secureConnect", resolve);
        secure.once("error", reject);
      });
      return secure;
    }
    if (answer.length === 1 && answer[0] === 0x4e /* 'N' */ && !server.tls.required) {
      return raw; // paused: the caller resumes it once it listens
    }
    throw new Error(`the server refused TLS, which the connection string requires`);
  } catch (error) {
    raw.destroy();
    throw error;
  }
}
