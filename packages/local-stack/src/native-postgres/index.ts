export {
  type NativePostgres,
  type StartNativePostgresOptions,
  startNativePostgres,
} from "./cluster.ts";
export { isNativePostgresProvisioned } from "./installation.ts";
export { pgvectorVersion } from "./pgvector-version.ts";
export { NativePostgresUnavailableError, provisionNativePostgres } from "./provision.ts";
