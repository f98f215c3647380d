// What the resolver takes from @quarry/core, without bundling the whole domain into the
// test worker: the same source files the package exports.
export { isIpAddress } from "../../../../packages/core/src/fetching/ip-address.ts";
export { UpstreamError } from "../../../../packages/core/src/shared/errors.ts";
