// Keeps the run's secrets out of everything its reporters write and print.
// Listed first, it replaces them in each step, error, annotation and
// attachment before any other reporter sees it (Playwright hands every
// reporter the same objects, in the order they are listed): the terminal, the
// HTML report, JUnit, the JSON results, a shard's blob and the matrix.
// At the very end (onExit, after every reporter wrote its files) it goes
// over every file under the reports folder, traces and blobs unpacked, as a
// last net, then deletes the run's private folder (decision 0023).
import { rmSync } from "node:fs";
import type { FullConfig, Reporter, Suite, TestCase, TestError, TestResult, TestStep } from "@playwright/test/reporter";
import { ownMocks, type RunTarget, readSettings } from "./config.ts";
import { redactTree } from "./redact-files.ts";
import { RUN_DIR_VARIABLE, RunSecrets } from "./secrets.ts";

export default class RedactionReporter implements Reporter {
  #outputDir: string;
  #secrets = new RunSecrets();

  constructor(options: { outputDir?: string } = {}) {
    this.#outputDir = options.outputDir ?? "reports/conformance";
    try {
      this.#secrets.addSettings(readSettings(process.env));
      // The own mocks' refresh tokens: each worker has its own mock (bawa conformance without a target).
      for (const mock of ownMocks()) this.#secrets.addSettings(mock);
    } catch {
      // A configuration that can not be read stops the run with its own message; nothing was set.
    }
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    for (const projectSuite of suite.suites) {
      const use = projectSuite.project()?.use as { runTargets?: RunTarget[] } | undefined;
      for (const t of use?.runTargets ?? []) this.#secrets.addSettings(t.settings);
    }
  }

  onStepBegin(_test: TestCase, _result: TestResult, step: TestStep): void {
    step.title = this.#redact(step.title);
  }

  onStepEnd(_test: TestCase, _result: TestResult, step: TestStep): void {
    this.#step(step);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    for (const e of new Set([...result.errors, ...(result.error ? [result.error] : [])])) this.#error(e);
    for (const a of [...test.annotations, ...result.annotations])
      if (a.description) a.description = this.#redact(a.description);
    for (const step of result.steps) this.#step(step);
    this.#attachments(result.attachments);
    for (const out of [result.stdout, result.stderr]) {
      for (let i = 0; i < out.length; i++) out[i] = this.#redact(out[i]!.toString());
    }
  }

  onError(error: TestError): void {
    this.#error(error);
  }

  async onExit(): Promise<void> {
    this.#secrets.refresh();
    const result = redactTree(this.#outputDir, {
      full: (text) => this.#secrets.redactor.redact(text),
      known: (text) => this.#secrets.redactor.redactKnown(text),
    });
    for (const { file, why } of result.removed) {
      console.error(
        `bawa conformance: removed ${file} from the reports: it could not be read to take secrets out (${why})`,
      );
    }
    const dir = process.env[RUN_DIR_VARIABLE];
    if (dir) rmSync(dir, { recursive: true, force: true });
  }

  #redact(text: string): string {
    return this.#secrets.redact(text);
  }

  #step(step: TestStep): void {
    step.title = this.#redact(step.title);
    if (step.error) this.#error(step.error);
    for (const a of step.annotations) if (a.description) a.description = this.#redact(a.description);
    this.#attachments(step.attachments);
    for (const child of step.steps) this.#step(child);
  }

  #error(e: TestError): void {
    for (const key of ["message", "stack", "snippet", "value"] as const) {
      const v = e[key];
      if (typeof v === "string") e[key] = this.#redact(v);
    }
    if (e.cause) this.#error(e.cause);
  }

  #attachments(list: TestResult["attachments"]): void {
    for (const a of list) {
      a.name = this.#redact(a.name);
      if (a.body && /^(text\/|application\/(json|xml|x-www-form-urlencoded))/.test(a.contentType)) {
        a.body = Buffer.from(this.#redact(a.body.toString("utf8")));
      }
    }
  }
}
