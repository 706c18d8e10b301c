/**
 * Moves the `k` smallest keys to the front of the array, in no particular order: Hoare's selection with a
 * median-of-three pivot, linear on average, so a deep page does not cost a sort of every matching row.
 */
export function selectSmallest(keys: Float64Array, k: number): void {
  const n = k - 1;
  let lo = 0;
  let hi = keys.length - 1;
  while (hi > lo) {
    const a = keys[lo] as number;
    const b = keys[(lo + hi) >>> 1] as number;
    const c = keys[hi] as number;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((keys[i] as number) < pivot) {
        i += 1;
      }
      while ((keys[j] as number) > pivot) {
        j -= 1;
      }
      if (i <= j) {
        const swap = keys[i] as number;
        keys[i] = keys[j] as number;
        keys[j] = swap;
        i += 1;
        j -= 1;
      }
    }
    if (n <= j) {
      hi = j;
    } else if (n >= i) {
      lo = i;
    } else {
      return;
    }
  }
}
