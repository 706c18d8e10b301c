/** First position in `[from, to)` of an ascending array whose value is >= `value` (`to` when there is none). */
export function lowerBound(array: ArrayLike<number>, value: number, from = 0, to = array.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((array[mid] as number) < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
