export interface Bindings {
  DATABASE_URL: string;
  EMBEDDING_MODEL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  NEON_LOCAL_PROXY?: string;
  /** a database connect or query unanswered this long fails the slice (retried); default 30 */
  DATABASE_TIMEOUT_SECONDS?: string;
  /** fault-injection runs only (local stack): probability of a failure at each fault point */
  INGEST_FAULT_RATE?: string;
  FILES: R2Bucket;
  INGEST_QUEUE: Queue<unknown>;
  AI?: Ai;
}
