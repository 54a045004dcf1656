#!/usr/bin/env node
// `npm run test:package`: the package as another team gets it. Packs the
// repository (its dist/ must be built), installs the tarball into a fresh
// temporary project without the network, from the npm cache `npm ci` filled,
// starts `npx bawa mock` there and points `npx bawa conformance` at it from
// that project. Exit 0 only when both work and the reports are written under
// the project, not under the package.
//
// npm ci caches package tarballs, not the registry's metadata, so the project
// gets a lockfile made from this repository's: the shipped dependencies at the
// versions tested here, which is also what a team's own lockfile pins.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const work = mkdtempSync(join(tmpdir(), "bawa-package-"));
const step = (what) => console.log(`test:package: ${what}`);
let mock;

function fail(message) {
  console.error(`test:package: FAILED: ${message}`);
  process.exitCode = 1;
}

try {
  if (!existsSync(join(root, "dist/src/cli/bawa.js"))) throw new Error("dist/ is missing: run npm run build first");
  step("npm pack");
  execFileSync(npm, ["pack", "--ignore-scripts", "--pack-destination", work, "--silent"], { cwd: root });
  const tgz = join(
    work,
    readdirSync(work).find((f) => f.endsWith(".tgz")),
  );
  const project = join(work, "project");
  mkdirSync(project);

  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
  const packages = {
    "": { name: "consumer", dependencies: { [pkg.name]: `file:${tgz}` } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: `file:${tgz}`,
      integrity: `sha512-${createHash("sha512").update(readFileSync(tgz)).digest("base64")}`,
      dependencies: pkg.dependencies,
      peerDependencies: pkg.peerDependencies,
      peerDependenciesMeta: pkg.peerDependenciesMeta,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages))
    if (path && !entry.dev && !entry.devOptional) packages[path] = entry;
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, dependencies: { [pkg.name]: `file:${tgz}` } }, null, 2),
  );
  writeFileSync(
    join(project, "package-lock.json"),
    JSON.stringify({ name: "consumer", lockfileVersion: 3, requires: true, packages }, null, 2),
  );
  step("npm ci --offline in a fresh project");
  execFileSync(npm, ["ci", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: project,
    stdio: "inherit",
  });
  if (existsSync(join(project, "node_modules/tsx"))) fail("tsx was installed: the package must run without it");

  const bin = join(project, "node_modules/.bin/bawa");
  step("npx bawa mock");
  const started = Date.now();
  mock = spawn(bin, ["mock", "--port", "0", "--quiet"], { cwd: project, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((done, failed) => {
    let out = "";
    mock.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) done(m[1]);
    });
    mock.on("exit", (code) => failed(new Error(`bawa mock exited with ${code}: ${out}`)));
  });
  step(`mock listening at ${url} after ${Date.now() - started} ms (the bench measures start-up properly)`);
  const granted = spawnSync(
    bin,
    ["refresh-token", "--client", "demo-client", "--secret", "demo-secret", "--url", url],
    { cwd: project, encoding: "utf8" },
  );
  if (granted.status !== 0) fail(`bawa refresh-token exited with ${granted.status}: ${granted.stderr}`);
  // An installed package has no sources to be older than: a warning here would be false.
  if (granted.stderr.includes("is older than")) fail(`bawa warned of a stale build in a package: ${granted.stderr}`);
  const refresh = granted.stdout.trim();

  step("npx bawa conformance --base-url ... (a part of the suite: data, tokens, screens)");
  const code = await new Promise((done) => {
    const run = spawn(
      bin,
      [
        "conformance",
        "--base-url",
        url,
        "--client-id",
        "demo-client",
        "--client-secret",
        "demo-secret",
        "--redirect-uri",
        "http://localhost:5173/callback",
        "--scope",
        "http://BusinessAdmin.Mock.API/Web/WebApi/*",
        "--username",
        "demo",
        "--password",
        "demo",
        "--refresh-token",
        refresh,
        "--grep",
        "ERR-200|CUST-FIELDS|TOKEN-RESPONSE|AUTHZ-SCREENS|VER-PATH",
      ],
      { cwd: project, stdio: "inherit", env: { ...process.env, CI: "1" } },
    );
    run.on("exit", (c) => done(c ?? 1));
  });
  if (code !== 0) fail(`bawa conformance exited with ${code}`);
  const summary = join(project, "reports/conformance/summary.json");
  if (!existsSync(summary)) fail(`no reports in the project (${summary})`);
  else if (JSON.parse(readFileSync(summary, "utf8")).verdict !== "passed")
    fail("the verdict in summary.json is not passed");
  if (existsSync(join(project, "node_modules", pkg.name, "reports")))
    fail("reports were written inside the installed package");
  if (!process.exitCode) step("passed: installed offline, mock started, suite ran from the project, reports there");
} catch (err) {
  fail(err.message);
} finally {
  mock?.kill();
  rmSync(work, { recursive: true, force: true });
}
