/**
 * The part of workerd's `node:dns/promises` (nodejs_compat) the host resolver uses. Declared
 * here because the Workers' types carry no Node modules; with @types/node loaded as well
 * (tests), these merge as overloads.
 */
declare module "node:dns/promises" {
  export function resolve4(hostname: string): Promise<string[]>;
  export function resolve6(hostname: string): Promise<string[]>;
}
