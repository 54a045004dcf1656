/** The descriptor the outer shell writes `times` to. */
export const CPU_FD: number;

/** How to spawn a stage's script: through the wrapper that reads its CPU where the shell has `times` (then `cpuPipe`: stdio's entry CPU_FD a pipe). */
export function stageCommand(script: string): { file: string; args: string[]; shell: boolean; cpuPipe: boolean };

/** The children's user and system seconds of `times`'s output, or undefined when it has no such line. */
export function childrenCpu(text: string): number | undefined;

/** The signal that ended a stage's script, from its shell's status (128 + the signal's number). */
export function signalOf(code: number | null): string | undefined;

/** The share of the cores' time spent idle between two readings of `os.cpus()`, or undefined where they do not compare. */
export function idleShare(
  before: ReadonlyArray<{ times: Record<string, number> }>,
  after: ReadonlyArray<{ times: Record<string, number> }>,
): number | undefined;
