/**
 * Resource subscriptions: `resources/subscribe` and `unsubscribe` per
 * connected SDK instance, and `notifications/resources/updated` for the
 * URIs an instance subscribed to when the server announces an update.
 */
import type { Server as SdkServer } from '@modelcontextprotocol/server'
import type { Log } from '../base/logging.ts'

type UpdateListener = (uri: string) => void

/** What subscriptions read of the server state (`ServerState` is one): the log failures go to and the server's name. */
export interface ResourceHost {
  readonly log: Log
  readonly info: { readonly name: string }
}

// Kept beside the server state rather than in it: updates reach only subscribers, list changes everyone.
// Each listener with the log of the transport that registered it.
const listeners = new WeakMap<ResourceHost, Map<UpdateListener, Log>>()

/** Registers a listener of resource updates on `state`, its failures told to `log`; returns its removal. */
export function onResourceUpdated(state: ResourceHost, listener: UpdateListener, log: Log = state.log): () => void {
  let set = listeners.get(state)
  if (set === undefined) listeners.set(state, (set = new Map()))
  set.set(listener, log)
  return () => set.delete(listener)
}

/** Tells every subscriber of `uri` (over every transport) that the resource changed. */
export function announceResourceUpdated(state: ResourceHost, uri: string): void {
  for (const [listener, log] of listeners.get(state) ?? []) {
    try {
      listener(uri)
    } catch (error) {
      log.error(`${state.info.name}: announcing an update of "${uri}": ${(error as Error).message}`, error, 'resources/updated')
    }
  }
}

/**
 * Serves `resources/subscribe` and `unsubscribe` on one SDK instance: its
 * URIs, and a listener sending it `notifications/resources/updated` for
 * them, registered at the first subscription. Returns the cleanup to run
 * when the instance closes.
 */
export function serveSubscriptions(server: SdkServer, state: ResourceHost, log: Log = state.log): () => void {
  const uris = new Set<string>()
  let off: (() => void) | undefined
  const stop = (): void => {
    off?.()
    off = undefined
  }
  server.setRequestHandler('resources/subscribe', (request) => {
    uris.add(request.params.uri)
    off ??= onResourceUpdated(
      state,
      (uri) => {
        // An instance that went away without closing (a stateless request's) stops listening here.
        if (!server.transport) return stop()
        if (!uris.has(uri)) return
        server.sendResourceUpdated({ uri }).catch(() => {
          // The connection is closing: nothing to tell it any more.
        })
      },
      log,
    )
    return {}
  })
  server.setRequestHandler('resources/unsubscribe', (request) => {
    uris.delete(request.params.uri)
    if (uris.size === 0) stop()
    return {}
  })
  return stop
}
