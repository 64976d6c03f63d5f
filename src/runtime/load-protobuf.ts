/**
 * protobufjs for the reflection codec, fetched on first need: its chunk is
 * imported dynamically, so a server start never parses it (a few ms of
 * every cold start), and evaluated only when first used (protobufjs.cjs).
 * The call pipeline awaits {@link preloadProtobuf} before its first call;
 * the synchronous helpers of protojson.ts and nested-types.ts then read it
 * through {@link loadProtobuf}. Code that has protobufjs statically anyway
 * (grpc/) hands over its loader with {@link provideProtobuf}.
 */
import type { loadProtobuf as LoadProtobuf } from './protobufjs.cjs'
import { runtimeError } from './errors.ts'

type Loaded = ReturnType<typeof LoadProtobuf>

let load: (() => Loaded) | undefined
let loading: Promise<void> | undefined

/** Gives the runtime a loader it can call synchronously (from code that imports protobufjs.cjs statically). */
export function provideProtobuf(loader: () => Loaded): void {
  load ??= loader
}

/** Whether {@link loadProtobuf} can answer now. */
export const protobufReady = (): boolean => load !== undefined

/** Fetches protobufjs's chunk (not evaluating it), once; resolves when {@link loadProtobuf} can answer. */
export function preloadProtobuf(): Promise<void> {
  return (loading ??= import('./protobufjs.cjs').then(
    (module) => {
      const loaded = module as { loadProtobuf?: typeof LoadProtobuf; default?: { loadProtobuf: typeof LoadProtobuf } }
      provideProtobuf(loaded.loadProtobuf ?? loaded.default!.loadProtobuf)
    },
    (error: unknown) => {
      // A chunk that failed to load (a network hiccup on the web) is fetched again by the next call.
      loading = undefined
      throw error
    },
  ))
}

/** `{ protobuf, protojson }`, evaluated the first time; throws before {@link preloadProtobuf} has resolved. */
export function loadProtobuf(): Loaded {
  if (load === undefined) {
    throw runtimeError(
      'NOT_LOADED',
      'protobufjs is not loaded yet: reflected types are available inside tool calls, or after `await preloadProtobuf()`',
    )
  }
  return load()
}
