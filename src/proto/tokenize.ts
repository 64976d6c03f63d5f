/**
 * A small `.proto` tokenizer that keeps what protobufjs drops: each token's
 * line and column, and its *leading* comment exactly as protoc attaches it
 * (`SourceCodeInfo.Location.leading_comments`).
 */

/** One token of a `.proto` file. */
export interface Token {
  /** The token text; a string literal keeps its quotes. */
  text: string
  /** 1-based position of the token's first character. */
  line: number
  column: number
  /** protoc's leading comment of this token (markers stripped, newlines kept), or null. */
  leading: string | null
}

const IDENT_START_RE = /[A-Za-z_]/
const IDENT_PART_RE = /[A-Za-z0-9_]/
const NUMBER_PART_RE = /[A-Za-z0-9_.]/
const BLANK_RE = /[ \t\r\v\f]/

/**
 * Splits `source` into tokens. Comments follow protoc's tokenizer: a comment
 * on the previous token's line is trailing, a blank line detaches, the block
 * left right before a token is its leading comment. Lenient: the text has
 * already been accepted by protobufjs.
 */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  let pos = 0
  let line = 1
  let column = 1

  const peek = (offset = 0): string => source.charAt(pos + offset)
  const advance = (): void => {
    if (source.charAt(pos) === '\n') {
      line++
      column = 1
    } else column++
    pos++
  }
  const skipBlanks = (): void => {
    while (pos < source.length && BLANK_RE.test(peek())) advance()
  }
  const commentStart = (): 'line' | 'block' | null =>
    peek() === '/' && peek(1) === '/' ? 'line' : peek() === '/' && peek(1) === '*' ? 'block' : null

  /** Reads `//...` up to and including its newline; returns the text after `//`. */
  const readLineComment = (): string => {
    advance()
    advance()
    const start = pos
    while (pos < source.length && peek() !== '\n') advance()
    if (pos < source.length) advance()
    return source.slice(start, pos)
  }
  /** Reads a block comment the way protoc records it: continuation lines lose leading blanks and one `*`. */
  const readBlockComment = (): string => {
    advance()
    advance()
    let text = ''
    let start = pos
    while (pos < source.length) {
      if (peek() === '\n') {
        advance()
        text += source.slice(start, pos)
        skipBlanks()
        if (peek() === '*') {
          advance()
          if (peek() === '/') {
            advance()
            return text
          }
        }
        start = pos
      } else if (peek() === '*' && peek(1) === '/') {
        text += source.slice(start, pos)
        advance()
        advance()
        return text
      } else advance()
    }
    return text + source.slice(start, pos)
  }

  /** Reads one non-comment token at `pos`. */
  const readToken = (leading: string | null): void => {
    const startLine = line
    const startColumn = column
    const start = pos
    const c = peek()
    if (IDENT_START_RE.test(c)) {
      while (pos < source.length && IDENT_PART_RE.test(peek())) advance()
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(peek(1)))) {
      while (pos < source.length) {
        const d = peek()
        if (NUMBER_PART_RE.test(d)) advance()
        else if ((d === '+' || d === '-') && /[eE]/.test(source.charAt(pos - 1)) && !/^0[xX]/.test(source.slice(start, pos))) advance()
        else break
      }
    } else if (c === '"' || c === "'") {
      advance()
      while (pos < source.length && peek() !== c && peek() !== '\n') {
        if (peek() === '\\') advance()
        advance()
      }
      if (peek() === c) advance()
    } else advance()
    tokens.push({ text: source.slice(start, pos), line: startLine, column: startColumn, leading })
  }

  if (source.charCodeAt(0) === 0xfeff) pos = 1
  let first = true
  while (true) {
    // protoc's Tokenizer::NextWithComments, keeping only what ends up leading.
    if (!first) {
      skipBlanks()
      const kind = commentStart()
      if (kind === 'line')
        readLineComment() // trailing comment of the previous token
      else if (kind === 'block') {
        readBlockComment()
        skipBlanks()
        if (peek() === '\n') advance()
        else if (!nextTokenNoComment()) break
        else continue // next token on the same line: the comment belongs to no one
      } else if (peek() === '\n') advance()
      else if (!nextTokenNoComment()) break
      else continue
    }
    first = false
    // Now on a line after the previous token: collect comment blocks.
    let buffer: string | null = null
    let bufferIsLine = false
    let done = true
    while (pos < source.length) {
      skipBlanks()
      const kind = commentStart()
      if (kind === 'line') {
        if (!bufferIsLine) buffer = null
        buffer = (buffer ?? '') + readLineComment()
        bufferIsLine = true
      } else if (kind === 'block') {
        buffer = readBlockComment()
        bufferIsLine = false
        skipBlanks()
        if (peek() === '\n') advance()
      } else if (peek() === '\n') {
        // A blank line: what came before is trailing or detached, never leading.
        advance()
        buffer = null
      } else if (pos < source.length) {
        const c = peek()
        // At the end of a scope a comment attaches to nothing after it.
        readToken(c === '}' || c === ']' || c === ')' ? null : buffer)
        done = false
        break
      }
    }
    if (done) break
  }
  return tokens

  /** protoc's plain `Next()`: skips blanks and comments unrecorded, reads a token; false at the end. */
  function nextTokenNoComment(): boolean {
    while (pos < source.length) {
      const c = source.charAt(pos)
      if (BLANK_RE.test(c) || c === '\n') advance()
      else if (commentStart() === 'line') readLineComment()
      else if (commentStart() === 'block') readBlockComment()
      else break
    }
    if (pos >= source.length) return false
    readToken(null)
    return true
  }
}
