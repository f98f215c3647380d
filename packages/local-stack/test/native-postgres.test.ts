import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mainArchiveAddress, parseAptSourceFile } from "../src/native-postgres/apt-sources.ts";
import {
  type NativePostgres,
  sharedBuffersMb,
  startNativePostgres,
} from "../src/native-postgres/cluster.ts";
import {
  controlDefaultVersion,
  isNativePostgresProvisioned,
  versionAtLeast,
} from "../src/native-postgres/installation.ts";
import { pgvectorVersion } from "../src/native-postgres/pgvector-version.ts";

describe("the archive address read from apt sources", () => {
  it("takes the release suite's URI from deb822 .sources, not the security archive's", () => {
    const debianSources = {
      path: "/etc/apt/sources.list.d/debian.sources",
      text: [
        "Types: deb",
        "# a comment line inside the stanza",
        "URIs: http://mirror.example/debian-security",
        "Suites: bookworm-security",
        "Components: main",
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg",
        "",
        "Types: deb",
        "URIs: http://mirror.example/debian/",
        "Suites: bookworm bookworm-updates",
        "Components: main contrib",
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg",
        "",
      ].join("\n"),
    };
    expect(mainArchiveAddress([debianSources], "bookworm")).toBe("http://mirror.example/debian");
  });

  it("skips disabled stanzas, deb-src-only entries and stanzas without main", () => {
    const files = [
      {
        path: "/etc/apt/sources.list.d/a.sources",
        text: [
          "Types: deb",
          "URIs: http://disabled.example/debian",
          "Suites: bookworm",
          "Components: main",
          "Enabled: no",
          "",
          "Types: deb-src",
          "URIs: http://sources-only.example/debian",
          "Suites: trixie",
          "Components: main",
          "",
          "Types: deb",
          "URIs: http://other.example/repo",
          "Suites: bookworm",
          "Components: stable",
        ].join("\n"),
      },
      {
        path: "/etc/apt/sources.list.d/b.sources",
        text: [
          "Types: deb deb-src",
          "URIs: mirror+file:///etc/apt/mirrors/debian.list",
          "Suites: bookworm",
          "Components: main",
          "Signed-By:",
          " -----BEGIN PGP PUBLIC KEY BLOCK-----",
          " .",
          " -----END PGP PUBLIC KEY BLOCK-----",
        ].join("\n"),
      },
    ];
    expect(mainArchiveAddress(files, "bookworm")).toBe(
      "mirror+file:///etc/apt/mirrors/debian.list",
    );
  });

  it("reads one-line sources.list entries, options in brackets included", () => {
    const sourcesList = {
      path: "/etc/apt/sources.list",
      text: [
        "# deb http://commented.example/debian bookworm main",
        "deb-src http://src.example/debian bookworm main",
        "deb http://security.example/debian-security bookworm-security main",
        "deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://ftp.example/debian bookworm main non-free-firmware # trailing",
      ].join("\n"),
    };
    const entries = parseAptSourceFile(sourcesList);
    expect(entries).toHaveLength(3);
    expect(entries[2]).toEqual({
      types: ["deb"],
      uris: ["http://ftp.example/debian"],
      suites: ["bookworm"],
      components: ["main", "non-free-firmware"],
    });
    expect(mainArchiveAddress([sourcesList], "bookworm")).toBe("http://ftp.example/debian");
  });

  it("passes over third-party repositories listed first, and accepts a suite alias", () => {
    const files = [
      {
        path: "/etc/apt/sources.list.d/a-nodesource.list",
        text: "deb [signed-by=/k.gpg] https://node.example/node_20.x nodistro main\n",
      },
      {
        path: "/etc/apt/sources.list.d/b-pgdg.list",
        text: "deb https://pg.example/apt bookworm-pgdg main\n",
      },
      {
        path: "/etc/apt/sources.list.d/c.list",
        text: "deb http://ftp.example/debian stable main\n",
      },
    ];
    expect(mainArchiveAddress(files, "bookworm")).toBe("http://ftp.example/debian");
  });

  it("returns null when only pockets or third-party repositories are configured", () => {
    const files = [
      {
        path: "/etc/apt/sources.list",
        text: "deb http://security.example/debian-security bookworm-security main\n",
      },
      {
        path: "/etc/apt/sources.list.d/nodesource.list",
        text: "deb [signed-by=/k.gpg] https://node.example/node_20.x nodistro main\n",
      },
    ];
    expect(mainArchiveAddress(files, "bookworm")).toBeNull();
    expect(mainArchiveAddress([], "bookworm")).toBeNull();
  });
});

describe("versions", () => {
  it("compares dotted versions numerically", () => {
    expect(versionAtLeast("0.8.0", [0, 8])).toBe(true);
    expect(versionAtLeast("0.10.1", [0, 8])).toBe(true);
    expect(versionAtLeast("1.0", [0, 8])).toBe(true);
    expect(versionAtLeast("0.7.4", [0, 8])).toBe(false);
    expect(versionAtLeast("x", [0, 8])).toBe(false);
  });

  it("reads default_version from a control file", () => {
    const control = "comment = 'vector data type'\ndefault_version = '0.8.0'\nrelocatable = true\n";
    expect(controlDefaultVersion(control)).toBe("0.8.0");
    expect(controlDefaultVersion("comment = 'none'\n")).toBeNull();
  });
});

// Native PostgreSQL is provisioned by `pnpm db:native provision` (CI runs it first). A machine
// with only Node skips these, unless REQUIRE_NATIVE_POSTGRES=true makes their absence a failure.
const runClusterTests =
  (await isNativePostgresProvisioned()) || process.env.REQUIRE_NATIVE_POSTGRES === "true";

describe("the cluster's shared_buffers", () => {
  it("is a quarter of the memory, within 128 MB and 2 GB", () => {
    const gib = 2 ** 30;
    expect(sharedBuffersMb(24 * gib)).toBe(2048);
    expect(sharedBuffersMb(2 * gib)).toBe(512);
    expect(sharedBuffersMb(gib / 4)).toBe(128);
  });
});

describe.skipIf(!runClusterTests)("a throwaway native PostgreSQL cluster", () => {
  let dataDir: string;
  let server: NativePostgres;

  beforeAll(async () => {
    // The temp directory itself: as root it is handed to the postgres user, which could not
    // pass through a private mkdtemp parent to reach a child of it.
    dataDir = await mkdtemp(join(tmpdir(), "quarry-native-pg-"));
    server = await startNativePostgres({ dataDir, durable: false });
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("runs with the shared_buffers its machine's memory allows", async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      // pg_settings counts shared_buffers in 8 kB pages.
      const { rows } = await client.query(
        "SELECT setting::int * 8 / 1024 AS mb FROM pg_settings WHERE name = 'shared_buffers'",
      );
      expect(rows).toEqual([{ mb: sharedBuffersMb() }]);
    } finally {
      await client.end();
    }
  });

  it("offers pgvector >= 0.8 before the extension is created", async () => {
    const version = await pgvectorVersion(server.url);
    expect(version).not.toBeNull();
    expect(versionAtLeast(version ?? "", [0, 8])).toBe(true);
  });

  it("creates the vector extension and answers a filtered HNSW query", async () => {
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query("CREATE EXTENSION vector");
      const { rows: installed } = await client.query<{ extversion: string }>(
        "SELECT extversion FROM pg_extension WHERE extname = 'vector'",
      );
      expect(versionAtLeast(installed[0]?.extversion ?? "", [0, 8])).toBe(true);

      await client.query("CREATE TABLE items (id int PRIMARY KEY, tag text, embedding vector(3))");
      await client.query(
        `INSERT INTO items
         SELECT i, CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END, ARRAY[i, i * 2, 1]::real[]::vector
         FROM generate_series(1, 200) AS i`,
      );
      await client.query("CREATE INDEX ON items USING hnsw (embedding vector_l2_ops)");
      await client.query("BEGIN");
      // iterative_scan arrived in pgvector 0.8: it errors on older versions.
      await client.query("SET LOCAL hnsw.iterative_scan = relaxed_order");
      await client.query("SET LOCAL enable_seqscan = off");
      const { rows } = await client.query<{ id: number }>(
        "SELECT id FROM items WHERE tag = 'odd' ORDER BY embedding <-> $1::vector LIMIT 3",
        ["[10.2,20.4,1]"],
      );
      await client.query("COMMIT");
      expect(rows.map((row) => row.id).sort((a, b) => a - b)).toEqual([9, 11, 13]);
    } finally {
      await client.end();
    }
  });

  it("refuses a second server on the same cluster, naming the running one", async () => {
    await expect(startNativePostgres({ dataDir: server.dataDir })).rejects.toThrow(
      /already runs on .*stop it with/,
    );
  });

  it("stops cleanly, and a restart reuses the cluster with its data", async () => {
    const clusterDir = server.dataDir;
    const port = server.port;
    await server.stop();
    await server.stop(); // idempotent
    expect(await portAcceptsConnections(port)).toBe(false);
    expect(await postgresProcessesFor(clusterDir)).toEqual([]);

    server = await startNativePostgres({ dataDir: clusterDir, durable: false });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ count: string }>("SELECT count(*) FROM items");
      expect(rows[0]?.count).toBe("200");
    } finally {
      await client.end();
    }
    expect(await postgresProcessesFor(clusterDir)).not.toEqual([]);
  });
});

function portAcceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolveOpen) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolveOpen(true);
    });
    socket.once("error", () => resolveOpen(false));
  });
}

/** Pids of processes whose command line names the cluster (the postmaster has `-D <dir>`). */
async function postgresProcessesFor(clusterDir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (commandLine.includes("postgres") && commandLine.includes(clusterDir)) {
      pids.push(Number(entry));
    }
  }
  return pids;
}
