/**
 * Types only: the check `implement()` applies to a typed implementation.
 * TypeScript does not flag unknown keys in an object literal returned from
 * a contextually typed arrow function (microsoft/TypeScript#241), so a
 * handler returning `{ vibe, vibez }` would pass; these types turn every key
 * the response type lacks, at any depth, into `never`.
 */
import type { RpcHandler, ServiceImplementation } from '../../runtime/types.ts'

// Values whose keys are not fields: functions and byte arrays.
type Fielded<T> = T extends (...args: never[]) => unknown ? never : T extends Uint8Array ? never : T extends object ? T : never
// The object (non-array) members of an allowed type.
type ObjectPart<A> = Exclude<Fielded<NonNullable<A>>, readonly unknown[]>
type ArrayItem<A> = NonNullable<A> extends infer U ? (U extends readonly (infer E)[] ? E : never) : never

/** `V` with each key the allowed type `A` does not declare, at any depth, as `never`. */
export type ExactReply<V, A> = V extends readonly (infer E)[]
  ? [ArrayItem<A>] extends [never]
    ? V
    : readonly ExactReply<E, ArrayItem<A>>[]
  : V extends Uint8Array
    ? V
    : // A stream (a server-streaming reply): its items are checked where it is typed.
      V extends Iterable<unknown> | AsyncIterable<unknown>
      ? V
      : V extends object
        ? [ObjectPart<A>] extends [never]
          ? V
          : { [P in keyof V]: P extends keyof ObjectPart<A> ? ExactReply<V[P], ObjectPart<A>[P]> : never }
        : V

// `any` (an untyped server's default) or a type with no keys (`object`).
type IsUntyped<T> = 0 extends 1 & T ? true : [keyof T] extends [never] ? true : false

/**
 * What `implement()` accepts for the implementation type `T`: the typed
 * handlers (each optional), or, untyped, any object, whose handlers are
 * contextually `RpcHandler`s, so `(req) => ...` types its request under
 * `strict` (the `object` member still takes class instances and interfaces,
 * which have no index signature).
 */
export type ImplementationOf<T> =
  true extends IsUntyped<T> ? Record<string, RpcHandler> | ServiceImplementation : Partial<T> & ServiceImplementation

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- matches a function of any parameters
type ReplyOf<F> = F extends (...args: any) => infer R ? Awaited<R> : never

/**
 * What an implementation `I` of the implementation type `T` must also be:
 * each handler's reply exact (no key its response type lacks), and no
 * function under a name that is not an RPC. Untyped `T` (`any`, or no keys) checks nothing.
 */
export type CheckedImplementation<I, T> =
  true extends IsUntyped<T>
    ? unknown
    : {
        [M in keyof I]: M extends keyof T
          ? I[M] extends (...args: infer P) => infer R
            ? (...args: P) => ExactReply<Awaited<R>, ReplyOf<T[M]>> | Promise<ExactReply<Awaited<R>, ReplyOf<T[M]>>>
            : I[M]
          : // A text type, so the error names the key: no function is assignable to it.
            I[M] extends (...args: never[]) => unknown
            ? `${M & string} is not an RPC of this service`
            : I[M]
      }
