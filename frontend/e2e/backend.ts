// Starts the real backend for the browser tests: a temp data dir with a small generated demo,
// migrations, collected static files and daphne on a free port. Nothing is mocked.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export const REPO_ROOT = resolve(import.meta.dirname, "../..");
const VENV_BIN = join(REPO_ROOT, ".venv", "bin");
const DEMO_STOCKS = "150";

export interface Credentials {
  username: string;
  password: string;
}

/** The two roles, created for each run with `manage.py createuser`. */
export const ANALYST: Credentials = { username: "e2e-analyst", password: "analyst-pass-8123" };
export const ADMIN: Credentials = { username: "e2e-admin", password: "admin-pass-8123" };

export interface Backend {
  url: string;
  dataDir: string;
  stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

async function manage(env: NodeJS.ProcessEnv, ...args: string[]): Promise<void> {
  try {
    await run(join(VENV_BIN, "python"), ["manage.py", ...args], { cwd: REPO_ROOT, env, maxBuffer: 16 << 20 });
  } catch (error) {
    const failure = error as { stderr?: string; stdout?: string };
    throw new Error(`manage.py ${args.join(" ")} failed:\n${failure.stderr ?? ""}${failure.stdout ?? ""}`, {
      cause: error,
    });
  }
}

async function waitUntilServing(url: string, daphne: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (daphne.exitCode !== null) throw new Error(`daphne exited with ${daphne.exitCode}:\n${log()}`);
    try {
      const response = await fetch(`${url}/api/market/stats/`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`daphne did not answer at ${url} within 60 s:\n${log()}`);
}

export async function startBackend(): Promise<Backend> {
  for (const tool of ["python", "daphne"]) {
    if (!existsSync(join(VENV_BIN, tool))) {
      throw new Error(`${join(VENV_BIN, tool)} is missing: run \`make test\` (it creates .venv) first`);
    }
  }
  if (!existsSync(join(REPO_ROOT, "frontend", "dist", "index.html"))) {
    throw new Error("frontend/dist is missing: run `npm run build` before the browser tests");
  }
  // chdb locks its directory: this test process owns a fresh one.
  const dataDir = mkdtempSync(join(tmpdir(), "veriscreen-e2e-"));
  const env = {
    ...process.env,
    VERISCREEN_DATA_DIR: dataDir,
    LLM_PROVIDER: "builtin",
    DJANGO_DEBUG: "false",
    PYTHONUNBUFFERED: "1",
  };
  let daphne: ChildProcess | undefined;
  const stopDaphne = async () => {
    if (daphne && daphne.exitCode === null && daphne.pid) {
      const exited = new Promise((done) => daphne?.once("exit", done));
      process.kill(-daphne.pid, "SIGTERM"); // its own process group: daphne and nothing else
      await exited;
    }
  };
  const url = `http://127.0.0.1:${await freePort()}`;
  try {
    await manage(env, "migrate", "--noinput", "-v", "0");
    // The market store (chdb) and the users (the ORM) are independent: prepared side by side.
    await Promise.all([
      (async () => {
        await manage(env, "market", "init");
        await manage(env, "market", "generate", "--stocks", DEMO_STOCKS);
      })(),
      (async () => {
        await manage(env, "collectstatic", "--noinput", "-v", "0");
        await manage(env, "createuser", ANALYST.username, "--role", "analyst", "--password", ANALYST.password);
        await manage(env, "createuser", ADMIN.username, "--role", "admin", "--password", ADMIN.password);
      })(),
    ]);
    let output = "";
    daphne = spawn(
      join(VENV_BIN, "daphne"),
      ["-b", "127.0.0.1", "-p", new URL(url).port, "backend.project.asgi:application"],
      { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    daphne.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    daphne.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitUntilServing(url, daphne, () => output);
  } catch (error) {
    await stopDaphne();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  return {
    url,
    dataDir,
    stop: async () => {
      await stopDaphne();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
