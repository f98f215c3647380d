import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../src/free-port.ts";
import { type Stack, startStack } from "../src/stack.ts";

/**
 * A port picked as free may be taken by another process before wrangler binds it (CI once lost
 * an e2e stack that way: "Address already in use"). A stack picks its ports again then; a port
 * it was given is the caller's to fix, so it fails at once, naming wrangler's exit.
 */
let dataDir: string;
let holder: Server;
let heldPort: number;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "quarry-stack-ports-"));
  // it never answers, and drops whatever connects (the stack's /health probes, say)
  holder = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const address = holder.address();
  heldPort = typeof address === "object" && address ? address.port : 0;
});
afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

describe("the ports of a local stack", () => {
  it("picks another port when the one it picked is taken before wrangler binds it", async () => {
    const logged: string[] = [];
    const picks = [heldPort];
    let stack: Stack | undefined;
    try {
      stack = await startStack({
        dataDir: join(dataDir, "picked"),
        // the first pick is a port someone else holds, as if taken between pick and bind
        pickPort: async () => picks.shift() ?? freePort(),
        wranglerOutput: { file: join(dataDir, "picked.log") },
        log: (line) => logged.push(line),
      });
      expect(stack.baseUrl).not.toBe(`http://127.0.0.1:${heldPort}`);
      expect((await fetch(`${stack.baseUrl}/health`)).status).toBe(200);
      expect(logged).toContain(
        `port ${heldPort} was taken before wrangler bound it; starting again on other ports`,
      );
      expect(await readFile(join(dataDir, "picked.log"), "utf8")).toContain(
        `Address already in use (127.0.0.1:${heldPort})`,
      );
    } finally {
      await stack?.stop();
    }
  });

  it("fails when the port it was given is taken, without trying others", async () => {
    const logged: string[] = [];
    await expect(
      startStack({
        port: heldPort,
        dataDir: join(dataDir, "given"),
        wranglerOutput: { file: join(dataDir, "given.log") },
        log: (line) => logged.push(line),
      }),
    ).rejects.toThrow("wrangler exited with code 1");
    expect(logged.filter((line) => line.includes("was taken"))).toEqual([]);
    expect(await readFile(join(dataDir, "given.log"), "utf8")).toContain(
      `Address already in use (127.0.0.1:${heldPort})`,
    );
  });
});
