import { describe, expect, it } from 'vitest'
import { describeComment, oneofNote, splitName } from '../../src/schema/descriptions.ts'

describe('describeComment (docs/mapping.md, "Descriptions from comments")', () => {
  it.each([
    [' Get Vibe\n of the server\n\n', 'Get Vibe of the server'],
    [' Must match \\d+.\n', 'Must match \\d+.'],
    ['/* Block "comment" with \\backslash\\. */', 'Block "comment" with \\backslash\\.'],
    ['// one\n// two\n', 'one two'],
    ['  tabs\tand   runs \n\n of  spaces ', 'tabs and runs of spaces'],
    ['', ''],
    ['\n\n', ''],
  ])('%j → %j', (raw, expected) => {
    expect(describeComment(raw)).toBe(expected)
  })

  it('normalises the SetVibe block comment of example.proto as protoc records it', () => {
    const raw =
      '\n This is a block comment\n with multiple lines\n to test block handling\n' +
      ' "Hello World", a `backtick`, and a path like C:\\vibes\\new\n'
    expect(describeComment(raw)).toBe(
      'This is a block comment with multiple lines to test block handling "Hello World", a `backtick`, and a path like C:\\vibes\\new',
    )
  })

  it('keeps null for no comment at all', () => {
    expect(describeComment(null)).toBeNull()
  })

  it('strips the text-level `// ` (step 1) and then one per line (step 2)', () => {
    expect(describeComment('// // nested')).toBe('nested')
    expect(describeComment('a\n// // b')).toBe('a // b')
  })
})

describe('splitName (fallback description)', () => {
  it.each([
    ['SetVibeDetails', 'Set Vibe Details'],
    ['GetVibe2Array', 'Get Vibe 2Array'],
    ['item123', 'item 123'],
    ['Get', 'Get'],
    ['HTTPServer', 'HTTPServer'],
    ['v2Api', 'v 2Api'],
  ])('%s → %s', (name, expected) => {
    expect(splitName(name)).toBe(expected)
  })
})

describe('oneofNote', () => {
  it('names the oneof', () => {
    expect(oneofNote('contact')).toBe('Part of the "contact" oneof: at most one of its fields may be set.')
  })
})
