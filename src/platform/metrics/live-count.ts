/** Hears things (sockets, subscriptions) open and close, to count those alive. */
export interface LiveCount {
  opened(): void;
  closed(): void;
}
