export interface EmbedOptions {
  signal?: AbortSignal;
}

/** Turns texts into vectors of a fixed size; one vector per text, in order. */
export interface Embedder {
  /** The full id, e.g. `local/hash` or `openai/text-embedding-3-small`. */
  readonly modelId: string;
  readonly dimensions: number;
  embed(texts: string[], opts?: EmbedOptions): Promise<number[][]>;
}
