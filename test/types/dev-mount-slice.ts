/**
 * Type-checked by `npm run typecheck`, not run: the plugin stage cannot
 * import `server/`, so the dev mount declares the slice of `Server` it uses
 * (src/plugin/dev-mount.ts). This assignment fails to compile when `Server`
 * stops having that slice.
 */
import type { MountableServer } from '../../src/plugin/dev-mount.ts'
import type { Server } from '../../src/entries/runtime.ts'

export const mountable = (server: Server): MountableServer => server
