export { type ResolveHost, refusedHostname } from "./destination.ts";
export {
  DEFAULT_FETCH_LIMITS,
  type FetchedSource,
  type FetchLike,
  type FetchLimits,
  type FetchSourceDeps,
  fetchSource,
} from "./fetch-source.ts";
export { type AddressKind, classifyAddress, isIpAddress, isPublicAddress } from "./ip-address.ts";
export { MAX_FILENAME_LENGTH, sanitizeFilename } from "./sanitize-filename.ts";
