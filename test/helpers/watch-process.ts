import type { ChildProcess } from 'node:child_process';

/** Collects a spawned CLI's output and lets a test wait for a line instead of sleeping. */
export interface WatchedProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the match once the combined output matches `pattern` (`count` times); rejects on exit or timeout. */
  waitFor(pattern: RegExp, options?: { count?: number; timeoutMs?: number }): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the process ended. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function watch(child: ChildProcess): WatchedProcess {
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  let ended = false;
  void exit.then(() => {
    ended = true;
    for (const listener of listeners) listener();
  });
  return {
    child,
    output: () => text,
    exited: () => exit,
    waitFor(pattern, { count = 1, timeoutMs = 30_000 } = {}) {
      return new Promise((resolve, reject) => {
        const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
        const check = () => {
          const matches = [...text.matchAll(global)];
          if (matches.length >= count) return finish(() => resolve(matches[count - 1]!));
          if (ended) finish(() => reject(new Error(`process exited before ${pattern} (x${count}); output:\n${text}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${pattern} (x${count}); output:\n${text}`))), timeoutMs);
        const finish = (fn: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          fn();
        };
        listeners.add(check);
        check();
      });
    },
  };
}
