import type { FileStore } from "../../src/index.ts";

/** A FileStore that keeps nothing, for writes that store no files (R2 is tested end to end). */
export const noFiles: FileStore = {
  put: async () => {},
  delete: async () => {},
  deletePrefix: async () => {},
};
