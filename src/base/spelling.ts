// The word a misspelt name was likely meant to be (`PreSnyc` → `PreSync`), for messages that name an
// unknown value beside the known ones.

/**
 * The known word closest to `word` (ignoring case), when it is within a typo of it: at most one edit
 * for words up to 4 characters, two for longer ones (an edit: a character inserted, removed, changed,
 * or two neighbours swapped: the optimal string alignment distance). Undefined when none is that
 * close, or when two are equally close; a known word written in another case is the one meant.
 */
export function likelyMeant(word: string, known: readonly string[]): string | undefined {
  const limit = word.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  let tie = false;
  for (const k of known) {
    const d = editDistance(word.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance, tie] = [k, d, false];
    else if (d === bestDistance) tie = true;
  }
  return best !== undefined && !tie && best !== word ? best : undefined;
}

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps, each
 * counting one (`stauts` → `status` is 1).
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const prev = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (rows[i - 2]?.[j - 2] as number) + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] as number;
}
