import type { Caller } from "@quarry/core";
import type { Bindings } from "../env.ts";
import type { Services } from "./services.ts";

export interface HonoEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    services: Services;
    /** set by the API-key middleware on project routes */
    caller: Caller;
  };
}
