/**
 * The keys an implementation may give an RPC's handler under: the RPC's
 * name (`SetVibe`) or its lowerCamel form (`setVibe`). The runtime looks
 * handlers up by them and the declarations the code generator emits list
 * them, so both import this one rule.
 */

/** `SetVibe` → `setVibe`: the RPC name with its first character lowercased. */
export const lowerCamel = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1)
