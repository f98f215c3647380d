export interface Bindings {
  DATABASE_URL: string;
  EMBEDDING_MODEL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  NEON_LOCAL_PROXY?: string;
  FILES: R2Bucket;
  INGEST_QUEUE: Queue<unknown>;
  AI?: Ai;
}
