import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import type { Database } from "@quarry/db";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import {
  type FreshDatabase,
  freshDatabase,
} from "../../../../packages/core/test/support/database.ts";
import {
  type PgServer,
  startPgServer,
} from "../../../../packages/local-stack/src/pg-server/index.ts";
import { REPO_ROOT } from "../../../../packages/local-stack/src/stack.ts";
import { writeLocalConfigs } from "../../../../packages/local-stack/src/wrangler-configs.ts";

/** What `batch.queue` says: a work queue (slices, indexing), or their dead-letter queue (wrangler.toml). */
export type QueueName = "quarry-ingest" | "quarry-index" | "quarry-ingest-dlq";

export type QueueResult = Awaited<ReturnType<Awaited<ReturnType<Miniflare["getWorker"]>>["queue"]>>;

/**
 * The real ingest worker under workerd, driven one batch at a time, as Cloudflare's
 * vitest-pool-workers `queues` example drives its consumer (`SELF.queue(…)` → the batch's
 * acks and retries). The worker is the production bundle (`wrangler deploy --dry-run` of
 * workers/ingest/wrangler.toml) with the bindings the local stack gives it (its R2 and Queue
 * from Miniflare, the database through the loopback Neon-style server), minus the queue
 * consumers: the test decides which batch arrives when, and reads what each one left.
 */
export interface ConsumerHarness {
  /** the worker's database (in-process PGlite), for seeding and reading between batches */
  db: Database;
  /** the worker's R2 bucket (Miniflare's) */
  files: R2Bucket;
  /** delivers one message on `queue` (the `attempts`-th delivery) and returns what the worker did with it */
  deliver(queue: QueueName, body: unknown, attempts?: number): Promise<DeliveryResult>;
  close(): Promise<void>;
}

export interface DeliveryResult {
  id: string;
  result: QueueResult;
}

export async function startConsumerHarness(
  vars: Record<string, string> = {},
): Promise<ConsumerHarness> {
  const scratch = await mkdtemp(join(tmpdir(), "quarry-ingest-consumer-"));
  let database: FreshDatabase | undefined;
  let pg: PgServer | undefined;
  let mf: Miniflare | undefined;
  const close = async () => {
    await mf?.dispose();
    await pg?.close();
    await database?.close();
    await rm(scratch, { recursive: true, force: true });
  };
  try {
    const bundle = await bundleIngestWorker(join(scratch, "bundle"));
    // PGlite, migrated, served on loopback as the local stack serves it to the workers
    database = await freshDatabase("pglite");
    if (!database.pglite) throw new Error("expected an embedded database");
    pg = await startPgServer(database.pglite, { host: "127.0.0.1" });
    const configs = await writeLocalConfigs(REPO_ROOT, scratch, {
      DATABASE_URL: `postgres://quarry:quarry@127.0.0.1:${pg.pgPort}/postgres?sslmode=disable`,
      NEON_LOCAL_PROXY: `127.0.0.1:${pg.wsPort}`,
      ...vars,
    });
    const { workerOptions } = unstable_getMiniflareWorkerOptions(configs.ingest);
    const { queueConsumers: _driven, ...options } = workerOptions;
    mf = new Miniflare({
      ...options,
      name: "quarry-ingest",
      modules: true,
      // The bundle's module is named by its whole path: pdf.js resolves `..` against
      // `import.meta.url` at start-up, which fails for a module at the root.
      modulesRoot: "/",
      scriptPath: bundle,
      // `queue()` on the worker's fetcher, as vitest-pool-workers' SELF.queue needs it too
      compatibilityFlags: [...(options.compatibilityFlags ?? []), "service_binding_extra_handlers"],
    });
    const worker = await mf.getWorker();
    const files = (await mf.getR2Bucket("FILES")) as unknown as R2Bucket;
    return {
      db: database.db,
      files,
      async deliver(queue, body, attempts = 1) {
        const id = randomBytes(16).toString("hex");
        const result = await worker.queue(queue, [{ id, timestamp: new Date(), attempts, body }]);
        return { id, result };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The production entry, bundled exactly as `wrangler deploy` bundles it. */
async function bundleIngestWorker(outDir: string): Promise<string> {
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve("wrangler/package.json")), "bin/wrangler.js");
  await promisify(execFile)(
    process.execPath,
    [bin, "deploy", "--dry-run", "-c", "workers/ingest/wrangler.toml", "--outdir", outDir],
    { cwd: REPO_ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" } },
  );
  return join(outDir, "worker.js");
}
