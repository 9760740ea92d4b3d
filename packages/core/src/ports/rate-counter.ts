/** Counters that expire with their window (Redis in production). Used for the login throttle. */
export interface RateCounter {
  /** Counts and seconds left in the window of each key (0 and 0 when no window is open). */
  peek(keys: string[]): Promise<{ count: number; ttlSeconds: number }[]>;
  /** Adds one to each key, opening a window of `windowSeconds` where none is open. */
  hit(keys: string[], windowSeconds: number): Promise<void>;
  reset(key: string): Promise<void>;
}
