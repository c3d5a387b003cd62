#!/usr/bin/env node
// Offline stand-in for Prisma's native `schema-engine` binary (PostgreSQL only). Prisma's CLI downloads
// that binary from binaries.prisma.sh, which this project's machines cannot reach; prisma.config.ts
// points PRISMA_SCHEMA_ENGINE_BINARY here. It speaks the binary's CLI and its line-delimited JSON-RPC
// protocol on stdio and delegates every request to the WASM build of the same engine.
import readline from "node:readline";
import { openSchemaEngine, pg, pgConfigFromUrl } from "./wasm-engine.mjs";

const argv = process.argv.slice(2);
const flagValues = (flag) => argv.flatMap((arg, i) => (arg === flag ? [argv[i + 1]] : []));
const stderrLine = (level, message, extra = {}) =>
  process.stderr.write(`${JSON.stringify({ timestamp: new Date().toISOString(), level, fields: { message, ...extra }, target: "schema_engine::logger" })}\n`);

if (argv.includes("--version")) {
  console.log("schema-engine-cli agent-ledger-wasm-shim");
  process.exit(0);
}

const datasource = JSON.parse(flagValues("--datasource")[0] ?? "{}");

const cliAt = argv.indexOf("cli");
if (cliAt >= 0) await runCliCommand(argv[cliAt + 1]);
else serveJsonRpc();

async function runCliCommand(command) {
  const { config } = pgConfigFromUrl(datasource.url);
  try {
    if (command === "can-connect-to-database") {
      const client = new pg.Client(config);
      await client.connect();
      await client.end();
    } else if (command === "create-database" || command === "drop-database") {
      const client = new pg.Client({ ...config, database: "postgres" });
      await client.connect();
      await client.query(`${command === "create-database" ? "CREATE" : "DROP"} DATABASE "${config.database}"`);
      await client.end();
      console.log(JSON.stringify({ database_name: config.database }));
    } else {
      throw new Error(`unsupported command: cli ${command}`);
    }
    process.exit(0);
  } catch (error) {
    const code = { "3D000": "P1003", ECONNREFUSED: "P1001", "28P01": "P1000" }[error.code];
    stderrLine("INFO", `cli ${command}`); // the CLI skips the first stderr line
    stderrLine("ERROR", error.message, code ? { error_code: code } : {});
    process.exit(1);
  }
}

function serveJsonRpc() {
  let engine;
  const getEngine = () =>
    (engine ??= openSchemaEngine({
      url: datasource.url,
      schemaPaths: flagValues("--datamodels"),
      log: (line) => process.env.SHIM_DEBUG && process.stderr.write(`${line}\n`),
    }));
  const renamed = { getDatabaseVersion: "version" };
  const paramsFor = (method, params) => {
    if (method === "reset") return { filter: params?.filter ?? { externalTables: [], externalEnums: [] } };
    if (method === "ensureConnectionValidity") return {};
    return params;
  };
  const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

  let inFlight = 0;
  let inputClosed = false;
  const maybeExit = () => inputClosed && inFlight === 0 && process.exit(0);
  readline
    .createInterface({ input: process.stdin, crlfDelay: Infinity })
    .on("line", async (line) => {
      if (!line.trim()) return;
      const request = JSON.parse(line);
      if (!request.method) return; // the CLI's answer to one of our "print" requests
      inFlight++;
      try {
        const e = await getEngine();
        const method = renamed[request.method] ?? request.method;
        if (typeof e[method] !== "function") throw new Error(`${request.method} is not supported by the WASM schema engine`);
        let result = (await e[method](paramsFor(request.method, request.params))) ?? null;
        if (request.method === "diff" && typeof result?.stdout === "string") {
          // the native engine prints diffs through a reverse "print" request that the CLI echoes
          send({ id: 1e9 + request.id, method: "print", params: { content: result.stdout.replace(/\n$/, "") } });
          result = { ...result, stdout: null };
        }
        send({ id: request.id, result });
      } catch (error) {
        const message = String(error?.message ?? error);
        const code = /^(P\d{4})\b/.exec(message)?.[1];
        send({
          id: request.id,
          error: {
            code: 4466,
            message: "An error happened. Check the data field for details.",
            data: { is_panic: false, message, ...(code ? { error_code: code } : {}) },
          },
        });
      } finally {
        inFlight--;
        maybeExit();
      }
    })
    .on("close", () => {
      inputClosed = true;
      maybeExit();
    });
}
