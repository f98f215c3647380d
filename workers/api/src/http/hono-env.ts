import type { Caller, ProjectContext } from "@quarry/core";
import type { Bindings } from "../env.ts";
import type { Services } from "./services.ts";

export interface HonoEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    services: Services;
    /** set by the API-key middleware on project routes */
    caller: Caller;
    /** the caller's project, with its per-request cache of authorised records */
    project: ProjectContext;
  };
}
