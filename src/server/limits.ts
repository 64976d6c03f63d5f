/** Limits of the serving transports, defined once for every stage that needs them. */

/** Largest HTTP request body served, in bytes (4 MiB); larger bodies get `413`. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024

/** Hosts that count as loopback: binding them needs no allow-list. */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '::1', '[::1]']
