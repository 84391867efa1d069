// The shell's one binary search (sorted arrays: event times, kill ticks, piece ticks, entity ids in
// a packed frame, timeline columns). Allocates nothing: a key function, where one is needed, is a
// module-level constant of the caller's.

/**
 * The first index i of `arr` (ascending by `key`) whose key is not before `x`: `key(arr[i]) >= x`,
 * or `> x` with `after`; the number of elements when there is none. `key` maps an element to what
 * is compared (default: the element itself). With `stride`, `arr` is a flat array of records of
 * that many words and record i is `arr[i * stride]` (the index returned counts records).
 */
export function bisect(arr, x, after = false, key = null, stride = 1) {
  let lo = 0;
  let hi = stride === 1 ? arr.length : Math.floor(arr.length / stride);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = key ? key(arr[mid * stride]) : arr[mid * stride];
    if (after ? v <= x : v < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index i with key(arr[i]) >= x (arr ascending); arr.length when none. */
export function lowerBound(arr, x, key = null) {
  return bisect(arr, x, false, key);
}

/** First index i with key(arr[i]) > x (arr ascending); arr.length when none. */
export function upperBound(arr, x, key = null) {
  return bisect(arr, x, true, key);
}
