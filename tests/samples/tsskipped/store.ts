// A store whose type parameters carry variance annotations (TypeScript 4.7):
// the grammar treeloom uses reports a parse error on them, so treeloom skips the file.

export interface Getter<out T> {
  get(): T;
}

export interface Setter<in T> {
  set(value: T): void;
}

/** Keeps one value and tells subscribers when it changes. */
export class Store<T> implements Getter<T>, Setter<T> {
  private listeners: Array<(value: T) => void> = [];

  constructor(private value: T) {}

  get(): T {
    return this.value;
  }

  set(value: T): void {
    this.value = value;
    this.listeners.forEach((listener) => listener(value));
  }

  subscribe(listener: (value: T) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
}

/** Build a store that persists every change under a storage key. */
export const persistentStore = <T>(key: string, initial: T): Store<T> => {
  const store = new Store(initial);
  store.subscribe((value) => localStorage.setItem(key, JSON.stringify(value)));
  return store;
};

export type Listener<T> = (value: T) => void;
