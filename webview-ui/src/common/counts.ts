// +/− line counts as a screen reader should say them: "7 insertions, 5 deletions" instead of "7 5".

export function countsLabel(insertions: number, deletions: number): string {
  const n = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
  return `${n(insertions, 'insertion', 'insertions')}, ${n(deletions, 'deletion', 'deletions')}`;
}

/** The attributes that make a pair of count spans one thing to assistive technology, read by its label. */
export function countsAria(insertions: number, deletions: number): string {
  return ` role="img" aria-label="${countsLabel(insertions, deletions)}"`;
}
