/** Up to `limit` candidates that look like `name` (a typo, a prefix, a missing layer prefix), best first. */
export function closeMatches(name: string, candidates: Iterable<string>, limit = 5): string[] {
  const wanted = name.toLowerCase();
  const scored: { candidate: string; score: number }[] = [];
  for (const candidate of new Set(candidates)) {
    const lower = candidate.toLowerCase();
    const distance = editDistance(wanted, lower);
    const contains = Math.min(lower.length, wanted.length) >= 3 && (lower.includes(wanted) || wanted.includes(lower));
    if (distance <= Math.max(2, Math.floor(wanted.length / 4)) || contains) {
      scored.push({ candidate, score: contains ? Math.min(distance, 1) : distance });
    }
  }
  scored.sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate));
  return scored.slice(0, limit).map((entry) => entry.candidate);
}

/** Levenshtein distance, two rows of memory. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
