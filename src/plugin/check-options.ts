/**
 * Checks the plugin's options when the plugin is created, with the
 * contract's option checker (src/contract/check-options.ts, the one the
 * runtime uses) throwing plain `Error`s: an unknown key or a wrong value
 * throws one line naming the option, what it got and what it accepts.
 */
import { DEFAULT_DISCOVERY_NAMES, DISCOVERY_MODES } from '../contract/discovery.ts'
import { authOptionsProblem, isScopeToken as isScope } from '../contract/auth-options.ts'
import { checkOptions, type OptionRule } from '../contract/check-options.ts'
import { isListResources, isResourceScheme, LIST_RESOURCES_ACCEPTS, RESOURCE_SCHEME_ACCEPTS } from '../contract/resource-options.ts'
import { DEFAULT_LOAD_TIMEOUT_MS, DEFAULT_MCP_PATH, DEFAULT_PROFILE } from '../contract/defaults.ts'
import {
  DEFAULT_RECURSION_DEPTH,
  DEFAULT_TOOL_NAME_BUDGET,
  DEFAULT_TOOL_NAMES,
  DEFAULT_TOOL_TOKEN_BUDGET,
  DEFAULT_TYPE_TOOL,
} from '../schema/index.ts'
import { PROFILES } from '../schema/types.ts'
import type { Options } from './options.ts'
import { isRecord } from '../contract/is-record.ts'

const isPattern = (v: unknown): boolean => typeof v === 'string' || v instanceof RegExp
const TOOL_NAMES = ['method', 'service', 'qualified']

/** The plugin's options, with their defaults. */
export const PLUGIN_RULES: Record<keyof Options, OptionRule> = {
  importPaths: {
    accepts: 'an array of directory names',
    test: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== ''),
    default: [],
  },
  profile: {
    accepts: `one of ${PROFILES.map((p) => `"${p}"`).join(', ')}`,
    test: (v) => (PROFILES as readonly unknown[]).includes(v),
    default: DEFAULT_PROFILE,
  },
  toolNames: {
    accepts: `${TOOL_NAMES.map((p) => `"${p}"`).join(', ')} or a function of the RPC`,
    test: (v) => TOOL_NAMES.includes(v as string) || typeof v === 'function',
    default: DEFAULT_TOOL_NAMES,
  },
  verbose: { accepts: 'true or false', test: (v) => typeof v === 'boolean', default: false },
  recursionDepth: {
    accepts: 'a whole number from 1 to 10',
    test: (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 10,
    default: DEFAULT_RECURSION_DEPTH,
  },
  toolNameBudget: {
    accepts: 'false or a whole number from 1 to 128',
    test: (v) => v === false || (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 128),
    default: DEFAULT_TOOL_NAME_BUDGET,
  },
  shortenToolNames: { accepts: 'true or false', test: (v) => typeof v === 'boolean', default: false },
  toolTokenBudget: {
    accepts: 'false or a whole number from 100 to 1000000',
    test: (v) => v === false || (Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 1_000_000),
    default: DEFAULT_TOOL_TOKEN_BUDGET,
  },
  typeTool: {
    accepts: 'a tool name of letters, digits and "_"',
    test: (v) => typeof v === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(v),
    default: DEFAULT_TYPE_TOOL,
  },
  methods: {
    accepts: 'an object { include?, exclude? } of arrays of method names or globs',
    test: (v) =>
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.keys(v).every((k) => k === 'include' || k === 'exclude') &&
      Object.values(v).every((list) => list === undefined || (Array.isArray(list) && list.every((p) => typeof p === 'string' && p !== ''))),
  },
  discovery: {
    accepts: DISCOVERY_MODES.map((m) => `'${m}'`).join(', '),
    test: (v) => (DISCOVERY_MODES as readonly unknown[]).includes(v),
    default: 'auto',
  },
  discoveryNames: {
    accepts: 'an object { search?, describe?, call? } of three different tool names of letters, digits and "_"',
    test: (v) =>
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.entries(v).every(
        ([k, n]) => ['search', 'describe', 'call'].includes(k) && typeof n === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(n),
      ) &&
      new Set(Object.values({ ...DEFAULT_DISCOVERY_NAMES, ...v })).size === 3,
  },
  methodScopes: {
    accepts: 'an object of method globs to a scope or an array of scopes',
    test: (v) =>
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.entries(v).every(([glob, s]) => glob !== '' && (isScope(s) || (Array.isArray(s) && s.length > 0 && s.every(isScope)))),
    default: {},
  },
  resourceScheme: { accepts: RESOURCE_SCHEME_ACCEPTS, test: isResourceScheme },
  listResources: { accepts: LIST_RESOURCES_ACCEPTS, test: isListResources, default: false },
  include: {
    accepts: 'a glob, a RegExp or an array of them',
    test: (v) => v === null || isPattern(v) || (Array.isArray(v) && v.every(isPattern)),
  },
  exclude: {
    accepts: 'a glob, a RegExp or an array of them',
    test: (v) => v === null || isPattern(v) || (Array.isArray(v) && v.every(isPattern)),
  },
  dts: {
    accepts: 'true, false or a file name',
    test: (v) => typeof v === 'boolean' || (typeof v === 'string' && v !== ''),
    default: false,
  },
  dev: {
    accepts: 'an object { server, path?, loadTimeoutMs?, auth? }',
    test: (v) => isRecord(v),
  },
}

/** The options of the plugin's `dev` option, with their defaults. */
export const DEV_RULES: Record<string, OptionRule> = {
  server: { accepts: 'a module path such as "./src/mcp.ts"', test: (v) => typeof v === 'string' && v !== '' },
  path: {
    accepts: 'a path starting with "/"',
    test: (v) => typeof v === 'string' && v.startsWith('/') && v.length > 1,
    default: DEFAULT_MCP_PATH,
  },
  loadTimeoutMs: {
    accepts: 'a positive number of milliseconds',
    test: (v) => typeof v === 'number' && v > 0 && Number.isFinite(v),
    default: DEFAULT_LOAD_TIMEOUT_MS,
  },
  // Checked whole below (a nested option says which key is wrong).
  auth: { accepts: 'an object', test: () => true },
}

/** Throws for options the plugin does not know or cannot use; `where` prefixes the message (the plugin's name). */
export function checkPluginOptions(where: string, options: unknown): asserts options is Options | undefined {
  checkOptions(where, options, PLUGIN_RULES)
  const dev = (options as Options | undefined)?.dev
  if (dev !== undefined) {
    checkOptions(`${where}: option "dev"`, dev, DEV_RULES)
    if (dev.server === undefined)
      throw new Error(`${where}: option "dev" needs "server", the module whose default export is the Server to serve, got none`)
    const auth = dev.auth === undefined ? undefined : authOptionsProblem(dev.auth, false)
    if (auth !== undefined) throw new Error(`${where}: ${auth.replace(/"auth/g, '"dev.auth')}`)
  }
}
