/**
 * One option checker (src/contract/check-options.ts) for the plugin and the
 * run-time stages, each with its own error: the same texts, a plain `Error`
 * from the plugin, a `BAD_OPTION` runtime error from the runtime.
 */
import { describe, expect, it } from 'vitest'
import { booleanRule, checkOptions, integerRule } from '../../src/contract/check-options.ts'
import { checkPluginOptions } from '../../src/plugin/check-options.ts'
import { isRuntimeError } from '../../src/runtime/errors.ts'
import { Server } from '../../src/entries/runtime.ts'

const thrown = (run: () => unknown): unknown => {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('nothing thrown')
}

describe('the option checker', () => {
  const rules = { port: integerRule(0, 65535), quiet: booleanRule }

  it('throws the injected error with one line naming the option, what it got and what it accepts', () => {
    class Wrong extends Error {}
    const error = thrown(() => checkOptions('f()', { port: 70000 }, rules, (m) => new Wrong(m)))
    expect(error).toBeInstanceOf(Wrong)
    expect((error as Error).message).toBe('f(): option "port" must be an integer from 0 to 65535, got 70000')
    expect(() => checkOptions('f()', { prot: 1 }, rules)).toThrow('f(): unknown option "prot": the options are port, quiet')
    // A key one edit from an option names it.
    expect(() => checkOptions('f()', { quiett: true }, rules)).toThrow(
      'f(): unknown option "quiett" (did you mean "quiet"?): the options are port, quiet',
    )
    expect(() => checkOptions('f()', { ports: 1 }, rules)).toThrow(
      'f(): unknown option "ports" (did you mean "port"?): the options are port, quiet',
    )
    expect(() => checkOptions('f()', 'x', rules)).toThrow('f(): options must be an object, got "x"')
    expect(() => checkOptions('f()', { port: undefined, quiet: true }, rules)).not.toThrow()
  })

  it('the resource options: a bad scheme or listing names its option', () => {
    expect(() => checkPluginOptions('unplugin-proto-mcp', { resourceScheme: 'pub sub' })).toThrow(
      'unplugin-proto-mcp: option "resourceScheme" must be a URI scheme (a letter, then letters, digits, "+", "-" or ".") or an object of schemes by default scheme, got "pub sub"',
    )
    expect(() => checkPluginOptions('unplugin-proto-mcp', { resourceScheme: { pubsub: '9x' } })).toThrow('option "resourceScheme"')
    expect(() => checkPluginOptions('unplugin-proto-mcp', { listResources: { under: ['pubsub://projects/p1'] } })).toThrow(
      'option "listResources" must be true, false or an object { under?: parent names, max?: a whole number from 1 to 10000 }',
    )
    expect(() => checkPluginOptions('unplugin-proto-mcp', { listResources: { max: 0 } })).toThrow('option "listResources"')
    expect(() =>
      checkPluginOptions('unplugin-proto-mcp', {
        resourceScheme: { pubsub: 'gcp-pubsub' },
        listResources: { under: ['projects/p1'], max: 5 },
      }),
    ).not.toThrow()
  })

  it('the plugin throws plain Errors, a RegExp shown as written', () => {
    const error = thrown(() => checkPluginOptions('unplugin-proto-mcp', { include: [/x/, 3] }))
    expect(isRuntimeError(error)).toBe(false)
    expect((error as Error).message).toBe('unplugin-proto-mcp: option "include" must be a glob, a RegExp or an array of them, got [{},3]')
    expect(() => checkPluginOptions('unplugin-proto-mcp', { verbose: 'yes' })).toThrow(
      'unplugin-proto-mcp: option "verbose" must be true or false, got "yes"',
    )
    expect(() => checkPluginOptions('unplugin-proto-mcp', { exclude: /\.proto$/, dev: { server: './m.ts', path: 'mcp' } })).toThrow(
      'unplugin-proto-mcp: option "dev": option "path" must be a path starting with "/", got "mcp"',
    )
  })

  it('the runtime throws BAD_OPTION runtime errors with the same texts', () => {
    const error = thrown(() =>
      Server.builder('s')
        .build()
        .nodeHandler({ maxSessions: 0 } as never),
    )
    expect(isRuntimeError(error, 'BAD_OPTION')).toBe(true)
    expect((error as Error).message).toBe('nodeHandler(): option "maxSessions" must be an integer of at least 1, got 0')
  })
})
