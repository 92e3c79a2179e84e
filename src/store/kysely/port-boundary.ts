import { toStoreError } from './store-errors.ts';

/**
 * The port with every method's errors translated by `toStoreError`, so that no store method
 * has to catch driver errors by hand. Non-function properties pass through untouched.
 * `tablePrefix` is the store's, which the constraint names in the errors carry.
 */
export function atPortBoundary<Port extends object>(port: Port, tablePrefix = ''): Port {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(port, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      let method = wrapped.get(key);
      if (method === undefined) {
        method = async (...args: unknown[]) => {
          try {
            return await (value as (...a: unknown[]) => unknown).apply(target, args);
          } catch (error) {
            throw toStoreError(error, tablePrefix);
          }
        };
        wrapped.set(key, method);
      }
      return method;
    },
  });
}
