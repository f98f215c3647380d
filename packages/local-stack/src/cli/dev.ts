import { watchLauncherChain } from "../launcher-chain.ts";
import { maskDatabaseUrl } from "../native-proxy/native-database.ts";
import { startStack } from "../stack.ts";
import { tuningVars } from "../tuning-vars.ts";

/**
 * `pnpm dev`: the whole stack, on the embedded PGlite by default, or on the native PostgreSQL
 * of DATABASE_URL (pgvector >= 0.8) when it is set. Reads PORT, DATA_DIR, ADMIN_TOKEN,
 * DATABASE_URL, EMBEDDING_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL, ALLOW_PRIVATE_URLS, and the
 * indexing settings of `TUNING_VARS` (over the engine's defaults).
 */
const env = process.env;
const port = Number(env.PORT ?? 8787);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`PORT must be a TCP port, got ${env.PORT}`);
  process.exit(2);
}
// The api worker refuses a shorter token on every request; said here, the start fails at
// once instead of waiting two minutes for a /health that never answers.
const ADMIN_TOKEN_MIN_LENGTH = 16;
if (env.ADMIN_TOKEN && env.ADMIN_TOKEN.length < ADMIN_TOKEN_MIN_LENGTH) {
  console.error(`ADMIN_TOKEN must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters`);
  process.exit(2);
}

const stack = await startStack({
  port,
  dataDir: env.DATA_DIR ?? ".data",
  adminToken: env.ADMIN_TOKEN || undefined,
  databaseUrl: env.DATABASE_URL || undefined,
  embeddingModel: env.EMBEDDING_MODEL || undefined,
  openaiApiKey: env.OPENAI_API_KEY || undefined,
  openaiBaseUrl: env.OPENAI_BASE_URL || undefined,
  allowPrivateUrls: env.ALLOW_PRIVATE_URLS === "true",
  vars: tuningVars(env),
  log: (line) => console.error(`[quarry] ${line}`),
}).catch((error: unknown) => {
  console.error(`[quarry] failed to start: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});

// The token itself only when it was just generated: every later start says where it is
// kept (a 0600 file), so logs of ordinary starts never carry the secret.
if (stack.adminTokenGenerated) console.log(`ADMIN_TOKEN=${stack.adminToken}  (generated)`);
console.log(
  stack.adminTokenFile
    ? `ADMIN_TOKEN kept in ${stack.adminTokenFile}`
    : "ADMIN_TOKEN from the environment",
);
console.log(
  stack.engine === "native"
    ? `Postgres (native, pgvector ${stack.pgvectorVersion}): ${maskDatabaseUrl(stack.databaseUrl)}`
    : `Postgres (embedded PGlite, pgvector): ${stack.databaseUrl}`,
);
console.log(
  `Quarry ready at ${stack.baseUrl}  (console: ${stack.baseUrl}/console, API reference: ${stack.baseUrl}/docs)`,
);

let shuttingDown = false;
function shutDown(reason: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  console.error(`[quarry] ${reason}: stopping, data kept`);
  stack.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => shutDown(signal));

// `pnpm dev` runs this file under pnpm and the shell it runs scripts in, which die alone when
// killed hard: re-parented, this process would keep the whole stack running. Stop cleanly
// instead. (If this process itself dies, the guard in stack.ts ends wrangler.)
watchLauncherChain((pid) => shutDown(`launcher process ${pid} gone`));
