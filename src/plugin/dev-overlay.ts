/**
 * Vite's error overlay, as the dev mount and the plugin's `load` use it:
 * a build or load error shown on every page connected to the dev server,
 * and cleared when a build succeeds again.
 */
import type { ViteDevServer } from 'vite'

/** What Vite's overlay reads of an error (`ErrorPayload['err']`). */
export interface OverlayError {
  message?: string
  stack?: string
  id?: string
  frame?: string
  plugin?: string
  loc?: { file?: string; line: number; column: number }
}

/** Shows `error` in Vite's overlay (every page connected to the dev server's HMR channel). */
export function sendToOverlay(server: ViteDevServer, error: OverlayError, plugin: string): void {
  server.environments.client.hot.send({
    type: 'error',
    err: {
      message: error.message ?? String(error),
      stack: error.stack ?? '',
      plugin,
      ...(error.id === undefined ? {} : { id: error.id }),
      ...(error.frame === undefined ? {} : { frame: error.frame }),
      ...(error.loc === undefined ? {} : { loc: error.loc }),
    },
  })
}

/** Clears Vite's overlay (an empty update; a page showing it since it loaded reloads instead). */
export function clearOverlay(server: ViteDevServer): void {
  server.environments.client.hot.send({ type: 'update', updates: [] })
}
