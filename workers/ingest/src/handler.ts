import type { SourceReader, VectorGraphBuilds } from "@quarry/core";
import type { Database } from "@quarry/db";
import type { ProviderEnv } from "@quarry/providers";
import type { QueueSender } from "@quarry/worker-kit";
import type { Outcome } from "./outcome.ts";

/** What a handler works with: built once per batch by the composition root. */
export interface HandlerDeps {
  db: Database;
  /** ranged reads of stored sources (R2) */
  source: SourceReader;
  /** the ingest queue: successors of a slice, vector-index messages */
  send: QueueSender;
  providers: ProviderEnv;
  /** how `index-vectors` may build a graph in bulk (its session opens on first use) */
  graphBuilds: VectorGraphBuilds;
}

/** One delivery of a message, as the queue reports it. */
export interface Delivery {
  id: string;
  /** 1 for the first delivery */
  attempts: number;
}

/** Handles one kind of message; throws nothing it can decide about (the root retries it). */
export type MessageHandler<M> = (
  message: M,
  delivery: Delivery,
  deps: HandlerDeps,
) => Promise<Outcome>;
