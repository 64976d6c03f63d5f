/** Which list changed (`notifications/<kind>/list_changed`): what the server state announces and a fleet relays. */
export type ListKind = 'tools' | 'resources' | 'prompts'
