import { documents } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  createDataset,
  hasWaitedLongEnough,
  isVectorIndexMessage,
  nextTurn,
  putOff,
  VECTOR_INDEX_DEFERRAL,
  vectorIndexMessage,
  vectorIndexTurn,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

const database = useFreshDatabase();

describe("vectorIndexTurn: a large upload first, the graph after", () => {
  it("puts indexing off while a document of the dataset is part-way through its slices", async () => {
    const { ctx } = await createTenant(database.db, "turns");
    const dataset = await createDataset(ctx, { name: "d" }, { embeddingModel: "local/hash" });
    const other = await createDataset(ctx, { name: "o" }, { embeddingModel: "local/hash" });
    const message = vectorIndexMessage(ctx.projectId, dataset.id);
    const now = 1_700_000_000_000;

    expect(await vectorIndexTurn(database.db, message, now)).toEqual({ kind: "index" });

    await database.db.insert(documents).values([
      {
        projectId: ctx.projectId,
        datasetId: dataset.id,
        id: "up",
        status: "processing",
        metadata: {},
      },
      {
        projectId: ctx.projectId,
        datasetId: other.id,
        id: "x",
        status: "processing",
        metadata: {},
      },
    ]);
    const first = await vectorIndexTurn(database.db, message, now);
    expect(first).toEqual({
      kind: "defer",
      message: { ...message, waitingSince: now },
      delaySeconds: VECTOR_INDEX_DEFERRAL.delaySeconds,
    });
    // Put off again, it keeps the time it first waited from.
    if (first.kind !== "defer") throw new Error("unreachable");
    expect(isVectorIndexMessage(first.message)).toBe(true);
    expect(isVectorIndexMessage({ ...first.message, waitingSince: "soon" })).toBe(false);
    const again = await vectorIndexTurn(database.db, first.message, now + 60_000);
    expect(again).toMatchObject({ kind: "defer", message: { waitingSince: now } });

    // A stream of uploads cannot starve the graph.
    expect(
      await vectorIndexTurn(database.db, first.message, now + VECTOR_INDEX_DEFERRAL.maxWaitMs),
    ).toEqual({ kind: "index" });

    // A queued document (a small upload is written in one slice, queued until it is ready)
    // does not hold the graph back; nor do ready and failed ones, nor another dataset's.
    const setStatus = (status: "queued" | "processing" | "ready" | "failed") =>
      database.db
        .update(documents)
        .set({ status })
        .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, "up")));
    await setStatus("queued");
    expect(await vectorIndexTurn(database.db, message, now)).toEqual({ kind: "index" });
    await setStatus("processing");
    expect((await vectorIndexTurn(database.db, message, now)).kind).toBe("defer");
    await setStatus("ready");
    expect(await vectorIndexTurn(database.db, message, now)).toEqual({ kind: "index" });
    await setStatus("failed");
    expect(await vectorIndexTurn(database.db, message, now)).toEqual({ kind: "index" });
  });
});

describe("a message put off, and the one after its turn", () => {
  it("keeps its first wait while put off, and leaves it behind once it had its turn", () => {
    const message = vectorIndexMessage("p", "d");
    const now = 1_700_000_000_000;
    const put = putOff(message, now);
    expect(put).toEqual({
      kind: "defer",
      message: { ...message, waitingSince: now },
      delaySeconds: VECTOR_INDEX_DEFERRAL.delaySeconds,
    });
    expect(putOff(put.message, now + 30_000).message.waitingSince).toBe(now);
    expect(hasWaitedLongEnough(put.message, now + VECTOR_INDEX_DEFERRAL.maxWaitMs - 1)).toBe(false);
    expect(hasWaitedLongEnough(put.message, now + VECTOR_INDEX_DEFERRAL.maxWaitMs)).toBe(true);
    expect(hasWaitedLongEnough(message, now)).toBe(false);
    // A shorter longest wait (a bulk build's, for writes to pause) is over sooner.
    expect(hasWaitedLongEnough(put.message, now + 119_999, 120_000)).toBe(false);
    expect(hasWaitedLongEnough(put.message, now + 120_000, 120_000)).toBe(true);
    // The rest of the backlog goes on as a new message: put off later, it waits its own 10
    // minutes, not what is left of this one's.
    const next = nextTurn(put.message);
    expect(next).toEqual(message);
    expect(isVectorIndexMessage(next)).toBe(true);
    expect(hasWaitedLongEnough(next, now + VECTOR_INDEX_DEFERRAL.maxWaitMs)).toBe(false);
  });
});
