import { spawn } from "node:child_process";
import { LocalHashEmbedder } from "@quarry/providers";
import pg from "pg";
import type { QuietDatabase } from "./quiet-database.ts";
import { round, startTimer, summarize } from "./stats.ts";
import { createTextCorpus } from "./text-corpus.ts";

/**
 * A few fixed measurements of the machine itself, taken before each benchmark and reported
 * beside its figures, so that runs on different machines can be compared. Two VMs of the
 * same size differed 2–4× in this project's figures, and not only in CPU speed: where
 * creating a process costs tens of milliseconds (nested virtualisation), every new Postgres
 * backend pays it, and a figure that moved may only say the machine changed.
 */
export interface Yardstick {
  /** single-thread JavaScript: ms to embed 1,000 corpus texts with `local/hash` (best of 3) */
  js_embed_ms: number;
  /** process creation: ms per spawn of `true` to its exit (p50 of 10) */
  spawn_ms: number;
  /** the engine's Postgres, when reachable by URL; null otherwise */
  postgres: {
    /** ms per new connection and `SELECT 1` (p50 of 5): the cost of a new backend */
    connect_ms: number;
    /** ms per `SELECT 1` on an open connection (p50 of 50): one round trip */
    round_trip_ms: number;
    /**
     * ms for the server to turn the 1,000 corpus texts into keyword vectors (`to_tsvector`,
     * the costliest function of a row write: ~20 % of Postgres' time while a CSV is ingested),
     * best of 3: the server's own speed, which the JavaScript figure above does not follow (one
     * afternoon the VM embedded as fast as on a day it ingested CSV 20 % faster)
     */
    tsvector_ms: number;
    /**
     * the wait, before anything was measured, for index builds left running on the server
     * (`waitForIndexBuilds`); absent where nothing was waited for
     */
    earlier_index_builds?: QuietDatabase | null;
  } | null;
}

const TEXTS = 1000;
const corpus = createTextCorpus({ seed: 7, chars: 500 });

/** The texts both figures are taken on: embedded in JavaScript, and indexed by the server. */
function yardstickTexts(): string[] {
  return Array.from({ length: TEXTS }, (_, i) => corpus.text(i).text);
}

/** The machine-only part (no database): JavaScript speed and process creation. */
export async function measureMachine(): Promise<Omit<Yardstick, "postgres">> {
  const texts = yardstickTexts();
  const embedder = new LocalHashEmbedder();
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3; run++) {
    const elapsed = startTimer();
    for (const text of texts) embedder.embedOne(text);
    best = Math.min(best, elapsed());
  }
  const spawns: number[] = [];
  for (let i = 0; i < 10; i++) spawns.push(await timeSpawn("true"));
  return { js_embed_ms: round(best, 1), spawn_ms: summarize(spawns).p50 };
}

/** New connections and round trips to the Postgres at `databaseUrl`. */
export async function measurePostgres(
  databaseUrl: string,
): Promise<NonNullable<Yardstick["postgres"]>> {
  const connects: number[] = [];
  for (let i = 0; i < 5; i++) {
    const elapsed = startTimer();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query("SELECT 1");
    connects.push(elapsed());
    await client.end();
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const trips: number[] = [];
    for (let i = 0; i < 50; i++) {
      const elapsed = startTimer();
      await client.query("SELECT 1");
      trips.push(elapsed());
    }
    const texts = yardstickTexts();
    let tsvector = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3; run++) {
      const elapsed = startTimer();
      await client.query(
        "SELECT sum(length(to_tsvector('english', t))) FROM unnest($1::text[]) AS t",
        [texts],
      );
      tsvector = Math.min(tsvector, elapsed());
    }
    return {
      connect_ms: summarize(connects).p50,
      round_trip_ms: summarize(trips).p50,
      tsvector_ms: round(tsvector, 1),
    };
  } finally {
    await client.end();
  }
}

function timeSpawn(command: string): Promise<number> {
  const elapsed = startTimer();
  return new Promise((resolve, reject) => {
    const child = spawn(command, [], { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolve(elapsed()));
  });
}
