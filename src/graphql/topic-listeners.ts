/** Each topic's listeners on this instance. */
export class TopicListeners {
  private readonly byTopic = new Map<string, Set<(payload: unknown) => void>>();

  add(topic: string, listener: (payload: unknown) => void): () => void {
    let listeners = this.byTopic.get(topic);
    if (listeners === undefined) this.byTopic.set(topic, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.byTopic.get(topic) === listeners) this.byTopic.delete(topic);
    };
  }

  deliver(topic: string, payload: unknown): void {
    const listeners = this.byTopic.get(topic);
    if (listeners === undefined) return;
    for (const listener of listeners) listener(payload);
  }

  clear(): void {
    this.byTopic.clear();
  }
}
