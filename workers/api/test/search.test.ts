import { beforeAll, describe, expect, it } from "vitest";
import { call, expectEnvelope } from "./support/client.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

let tenant: Tenant;
let other: Tenant;
let hybrid: string;
let standard: string;

const as = (t: Tenant) => ({ token: t.key });
const post = (path: string, body: unknown, t: Tenant = tenant) =>
  call(path, { method: "POST", body, ...as(t) });

const TOPICS = {
  astronomy: [
    "The telescope observed a distant galaxy whose light was redshifted.",
    "A comet passed the orbit of Mars and astronomers tracked its tail.",
    "The observatory measured the spectrum of a supernova in a nearby galaxy.",
    "Exoplanets are found by the dip in a star's light curve during a transit.",
  ],
  cooking: [
    "Simmer the tomato sauce with garlic and butter for twenty minutes.",
    "Bake the sourdough bread in a hot oven until the crust is golden.",
    "Whisk the vinaigrette and season the salad just before serving.",
    "Braise the beef slowly in stock with onions and carrots.",
  ],
  finance: [
    "The central bank raised the interest rate to fight inflation.",
    "Bond yields rose as investors rebalanced their portfolio.",
    "The quarterly report showed strong cash flow and a larger dividend.",
    "Auditors reviewed the ledger and the balance sheet of the company.",
  ],
} as const;

async function newDataset(kind: "hybrid" | "standard") {
  const reply = await post("/api/datasets", { name: `search-${kind}`, kind });
  expect(reply.status).toBe(201);
  return reply.body.id as string;
}

async function seed(datasetId: string) {
  for (const [topic, texts] of Object.entries(TOPICS)) {
    const reply = await post(`/api/datasets/${datasetId}/rows/upsert`, {
      document_id: `rows-${topic}`,
      rows: texts.map((text, i) => ({
        data: { text },
        metadata: { topic, i, year: 2020 + i, tags: [topic, i % 2 ? "odd" : "even"] },
      })),
    });
    expect(reply.status).toBe(200);
  }
  const doc = await post(`/api/datasets/${datasetId}/documents`, {
    id: "guide",
    filename: "guide.txt",
    content:
      "A field guide to the night sky.\n\nUse a small telescope to find the Andromeda galaxy. " +
      "Comets and planets move against the stars; a telescope shows the moons of Jupiter.",
  });
  expect(doc.status).toBe(200);
}

beforeAll(async () => {
  tenant = await createTenant("search");
  other = await createTenant("search-other");
  hybrid = await newDataset("hybrid");
  standard = await newDataset("standard");
  await seed(hybrid);
  await seed(standard);
});

function expectSearchResult(result: any, query: string) {
  expect(Object.keys(result).sort()).toEqual([
    "confidence",
    "data",
    "embedding",
    "metadata",
    "query",
  ]);
  expect(result.query).toBe(query);
  expect(result.embedding).toBe(result.data.text);
  expect(result.confidence).toBeGreaterThanOrEqual(0);
  expect(result.confidence).toBeLessThanOrEqual(1);
  expect(typeof result.metadata.rowId).toBe("number");
  expect(typeof result.metadata.documentId).toBe("string");
}

function expectSortedByConfidence(results: { confidence: number }[]) {
  for (let i = 1; i < results.length; i++) {
    expect(results[i]!.confidence).toBeLessThanOrEqual(results[i - 1]!.confidence);
  }
}

describe("E2 search", () => {
  it("returns top_k 3 by default, as the API contract's Search result, sorted by confidence", async () => {
    for (const dataset of [hybrid, standard]) {
      const query = "telescope galaxy";
      const reply = await post(`/api/datasets/${dataset}/search`, { query });
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body)).toEqual(["results"]);
      const { results } = reply.body;
      expect(results).toHaveLength(3);
      for (const result of results) expectSearchResult(result, query);
      expectSortedByConfidence(results);
      expect(results[0].metadata.topic ?? "guide").not.toBe("cooking");
    }
  });

  it("takes top_k up to 100 and alpha from 0 (keyword) to 1 (semantic)", async () => {
    const query = "bread oven";
    const all = await post(`/api/datasets/${hybrid}/search`, { query, top_k: 100, alpha: 1 });
    expect(all.status).toBe(200);
    expect(all.body.results.length).toBe(13); // every embedded row: 12 rows + the guide (one chunk)
    expectSortedByConfidence(all.body.results);

    const keyword = await post(`/api/datasets/${hybrid}/search`, { query, top_k: 10, alpha: 0 });
    expect(keyword.status).toBe(200);
    // Pure keyword: only rows containing a query term, the best scoring 1.
    expect(keyword.body.results.map((r: any) => r.data.text)).toEqual([TOPICS.cooking[1]]);
    expect(keyword.body.results[0].confidence).toBe(1);

    const mixed = await post(`/api/datasets/${hybrid}/search`, { query, top_k: 5, alpha: 0.5 });
    expect(mixed.status).toBe(200);
    expect(mixed.body.results).toHaveLength(5);
    expect(mixed.body.results[0].data.text).toBe(TOPICS.cooking[1]);
    expectSortedByConfidence(mixed.body.results);
  });

  it("applies the metadata filter", async () => {
    const cases: [Record<string, unknown>, (m: any) => boolean][] = [
      [{ topic: "finance" }, (m) => m.topic === "finance"],
      [{ year: { $gte: 2022 } }, (m) => m.year >= 2022],
      [
        { tags: "odd", topic: { $ne: "cooking" } },
        (m) => m.tags.includes("odd") && m.topic !== "cooking",
      ],
      [{ $or: [{ i: 0 }, { documentId: "guide" }] }, (m) => m.i === 0 || m.documentId === "guide"],
    ];
    for (const [filter, accepts] of cases) {
      for (const alpha of [0, 0.5, 1]) {
        const reply = await post(`/api/datasets/${hybrid}/search`, {
          query: "interest rate telescope",
          top_k: 20,
          filter,
          alpha,
        });
        expect(reply.status).toBe(200);
        for (const result of reply.body.results) expect(accepts(result.metadata)).toBe(true);
        if (alpha > 0) expect(reply.body.results.length).toBeGreaterThan(0);
      }
    }
    const none = await post(`/api/datasets/${hybrid}/search`, {
      query: "telescope",
      filter: { topic: { $in: [] } },
    });
    expect(none.body.results).toEqual([]);
  });

  it("rejects bad input with a 400 naming the field", async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{}, "query"],
      [{ query: "" }, "query"],
      [{ query: 42 }, "query"],
      [{ query: "x", top_k: 0 }, "top_k"],
      [{ query: "x", top_k: 101 }, "top_k"],
      [{ query: "x", top_k: 2.5 }, "top_k"],
      [{ query: "x", alpha: -0.1 }, "alpha"],
      [{ query: "x", alpha: 1.5 }, "alpha"],
      [{ query: "x", alpha: "0.5" }, "alpha"],
      [{ query: "x", filter: { year: { $gt: "2020" } } }, "filter.year.$gt"],
      [{ query: "x", filter: { $where: 1 } }, "filter.$where"],
      [{ query: "x", filter: [1] }, "filter"],
      [{ query: "x", other: 1 }, "other"],
    ];
    for (const [body, field] of bad) {
      const error = expectEnvelope(
        await post(`/api/datasets/${hybrid}/search`, body),
        400,
        "bad_request",
      );
      expect(error.message).toContain(field);
    }
  });
});

describe("E3 search documents", () => {
  it("ranks documents by their text, as the API contract's Document result", async () => {
    const reply = await post(`/api/datasets/${hybrid}/search-documents`, {
      query: "telescope galaxy",
    });
    expect(reply.status).toBe(200);
    const { results } = reply.body;
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    for (const result of results) {
      expect(Object.keys(result).sort()).toEqual(
        ["content", "dataset_id", "document_id", "filename", "similarity", "url"].sort(),
      );
      expect(result.dataset_id).toBe(hybrid);
      expect(typeof result.similarity).toBe("number");
    }
    // the guide says "telescope" twice and "galaxy" once in little text
    expect(results[0].document_id).toBe("guide");
    expect(results[0].filename).toBe("guide.txt");
    expect(results[0].content).toContain("Andromeda");
    expect(results.map((r: any) => r.document_id)).toContain("rows-astronomy");
    expect(results.map((r: any) => r.document_id)).not.toContain("rows-cooking");
    for (let i = 1; i < results.length; i++) {
      expect(results[i].similarity).toBeLessThanOrEqual(results[i - 1].similarity);
    }
  });

  it("takes top_k, finds nothing for words no document has, and validates", async () => {
    const one = await post(`/api/datasets/${hybrid}/search-documents`, {
      query: "bread",
      top_k: 1,
    });
    expect(one.body.results.map((r: any) => r.document_id)).toEqual(["rows-cooking"]);
    expect(one.body.results[0].content).toBe("");
    const nothing = await post(`/api/datasets/${hybrid}/search-documents`, {
      query: "zeppelin the",
    });
    expect(nothing.body.results).toEqual([]);
    for (const [body, field] of [
      [{ query: "x", top_k: 0 }, "top_k"],
      [{ top_k: 3 }, "query"],
      [{ query: "x", alpha: 1 }, "alpha"],
    ] as const) {
      const error = expectEnvelope(
        await post(`/api/datasets/${hybrid}/search-documents`, body),
        400,
        "bad_request",
      );
      expect(error.message).toContain(field);
    }
  });
});

describe("E1 document filtered search", () => {
  it("equals E3 followed by E2 restricted to the documents found", async () => {
    for (const dataset of [hybrid, standard]) {
      const query = "telescope comet orbit";
      const reply = await post(`/api/datasets/${dataset}/document-filtered-search`, { query });
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body).sort()).toEqual(["document_results", "results"]);
      const documents = await post(`/api/datasets/${dataset}/search-documents`, { query });
      expect(reply.body.document_results).toEqual(documents.body.results);
      const ids = new Set(documents.body.results.map((d: any) => d.document_id));
      expect(reply.body.results).toHaveLength(3);
      for (const result of reply.body.results) {
        expectSearchResult(result, query);
        expect(ids.has(result.metadata.documentId)).toBe(true);
      }
      expectSortedByConfidence(reply.body.results);

      const restricted = await post(`/api/datasets/${dataset}/search`, {
        query,
        top_k: 3,
        filter: { documentId: { $in: [...ids] } },
      });
      expect(reply.body.results.map((r: any) => r.metadata.rowId)).toEqual(
        restricted.body.results.map((r: any) => r.metadata.rowId),
      );
    }
  });

  it("counts top_k_rows in total and top_k_documents in documents", async () => {
    const reply = await post(`/api/datasets/${hybrid}/document-filtered-search`, {
      query: "telescope bread interest",
      top_k_documents: 2,
      top_k_rows: 7,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.document_results).toHaveLength(2);
    const ids = new Set(reply.body.document_results.map((d: any) => d.document_id));
    expect(reply.body.results.length).toBeLessThanOrEqual(7);
    for (const result of reply.body.results) expect(ids.has(result.metadata.documentId)).toBe(true);
    const error = expectEnvelope(
      await post(`/api/datasets/${hybrid}/document-filtered-search`, {
        query: "x",
        top_k_rows: 101,
      }),
      400,
      "bad_request",
    );
    expect(error.message).toContain("top_k_rows");
  });
});

describe("search auth", () => {
  it("needs a key of the dataset's project; an unknown dataset is a 404", async () => {
    for (const path of ["search", "search-documents", "document-filtered-search"]) {
      const body = { query: "telescope" };
      expectEnvelope(
        await call(`/api/datasets/${hybrid}/${path}`, { method: "POST", body, token: null }),
        401,
        "unauthorized",
      );
      expectEnvelope(
        await post(`/api/datasets/${hybrid}/${path}`, body, other),
        401,
        "unauthorized",
      );
      expectEnvelope(await post(`/api/datasets/ds_missing/${path}`, body), 404, "not_found");
      // ownership is settled before the body is validated
      expectEnvelope(await post(`/api/datasets/${hybrid}/${path}`, {}, other), 401, "unauthorized");
    }
  });
});
