/**
 * Finds where each declaration of a `.proto` file starts and its leading
 * comment, keyed by full name: what protobufjs reflection does not keep.
 */
import { tokenize } from './tokenize.ts'
import type { Token } from './tokenize.ts'

/** Where a declaration starts and its protoc leading comment. */
export interface Declaration {
  line: number
  column: number
  comment: string | null
}

/** An `import` statement of a file. */
export interface ImportStatement {
  /** The path as written between the quotes. */
  path: string
  line: number
  column: number
}

/** What {@link scanDeclarations} finds in one file. */
export interface ScannedFile {
  /**
   * Keys: `message:pkg.Msg`, `enum:pkg.Enum`, `service:pkg.Svc`,
   * `field:pkg.Msg#field_name`, `value:pkg.Enum#NAME`, `method:pkg.Svc#Rpc`;
   * an extension field is a `field` of the package or message its `extend` is written in.
   */
  declarations: Map<string, Declaration>
  imports: ImportStatement[]
  /** The file's package ('' when none). */
  packageName: string
}

/** Builds the key {@link ScannedFile.declarations} uses. */
export function declarationKey(kind: 'message' | 'enum' | 'service', fullName: string): string
export function declarationKey(kind: 'field' | 'value' | 'method', parent: string, name: string): string
export function declarationKey(kind: string, name: string, member?: string): string {
  return member === undefined ? `${kind}:${name}` : `${kind}:${name}#${member}`
}

/** Scans the declarations and imports of a `.proto` file's text (already accepted by protobufjs). */
export function scanDeclarations(source: string): ScannedFile {
  const tokens = tokenize(source)
  const declarations = new Map<string, Declaration>()
  const imports: ImportStatement[] = []
  let i = 0
  let pkg = ''

  const at = (k = 0): string | undefined => tokens[i + k]?.text
  // Keywords are legal type names (`message message = 1;`): a declaration is `keyword Name {`.
  const opensBlock = (): boolean => at(2) === '{'
  const record = (key: string, token: Token | undefined): void => {
    if (token && !declarations.has(key)) declarations.set(key, { line: token.line, column: token.column, comment: token.leading })
  }
  const qualify = (scope: string, name: string): string => (scope ? `${scope}.${name}` : name)

  /** Skips to the end of a statement: past `;` or a `{...}` block, nesting respected. */
  const skipStatement = (): void => {
    let depth = 0
    while (i < tokens.length) {
      const t = at()
      if (t === '}' && depth === 0) return
      i++
      if (t === '{' || t === '[' || t === '(') depth++
      else if (t === '}' || t === ']' || t === ')') {
        depth--
        if (depth === 0 && t === '}') {
          if (at() === ';') i++
          return
        }
      } else if (t === ';' && depth === 0) return
    }
  }
  /** Index of the `=` of the statement starting at `i` (before any `;` or `{`), or -1. */
  const equalsIndex = (): number => {
    for (let k = i; k < tokens.length; k++) {
      const t = tokens[k]!.text
      if (t === '=') return k
      if (t === ';' || t === '{' || t === '}') return -1
    }
    return -1
  }
  /** Whether the statement whose `=` is at `eq` goes on into a `{` body (a proto2 group) rather than ending at `;`. */
  const opensBodyAfter = (eq: number): boolean => {
    let depth = 0
    for (let k = eq + 1; k < tokens.length; k++) {
      const t = tokens[k]!.text
      if (t === '[') depth++
      else if (t === ']') depth--
      else if (depth === 0 && (t === ';' || t === '}')) return false
      else if (depth === 0 && t === '{') return true
    }
    return false
  }
  /** Reads `{ ... }` with `member` called at each statement start. */
  const body = (member: () => void): void => {
    while (i < tokens.length && at() !== '{') i++
    i++
    while (i < tokens.length && at() !== '}') {
      const before = i
      if (at() === ';') i++
      else member()
      if (i === before) i++
    }
    i++
  }

  /**
   * Editions 2024 `export`/`local` before `message`/`enum`: steps past it and
   * returns it (the declaration, and its comment, start there), else undefined.
   */
  const visibility = (): Token | undefined => {
    const t = at()
    if ((t !== 'export' && t !== 'local') || (at(1) !== 'message' && at(1) !== 'enum') || at(3) !== '{') return undefined
    return tokens[i++]
  }
  const parseMessage = (scope: string, from?: Token): void => {
    const start = from ?? tokens[i]
    const fullName = qualify(scope, at(1) ?? '')
    record(declarationKey('message', fullName), start)
    i += 2
    body(() => messageMember(fullName))
  }
  const messageMember = (fullName: string): void => {
    const modifier = visibility()
    const t = at()
    if (t === 'message' && opensBlock()) return parseMessage(fullName, modifier)
    if (t === 'enum' && opensBlock()) return parseEnum(fullName, modifier)
    if (t === 'extend' && opensExtend()) return parseExtend(fullName)
    if (t === 'option' || t === 'reserved' || t === 'extensions' || t === 'extend') return skipStatement()
    if (t === 'oneof' && opensBlock()) {
      i += 2
      return body(() => (at() === 'option' ? skipStatement() : parseField(fullName)))
    }
    parseField(fullName)
  }
  const parseField = (fullName: string): void => {
    const start = tokens[i]
    const eq = equalsIndex()
    if (eq < 1) return skipStatement()
    const name = tokens[eq - 1]!.text
    // `group` before the name and a body after the number: a field named `group` (`repeated Group group = 3;`) is not one.
    const isGroup = tokens.slice(i, eq - 1).some((t) => t.text === 'group') && opensBodyAfter(eq)
    if (isGroup) {
      // proto2 group: a nested message `Name` and a field named as protobufjs names it (first letter lowered).
      record(declarationKey('field', fullName, name.charAt(0).toLowerCase() + name.slice(1)), start)
      record(declarationKey('message', qualify(fullName, name)), start)
      i = eq
      return body(() => messageMember(qualify(fullName, name)))
    }
    record(declarationKey('field', fullName, name), start)
    skipStatement()
  }
  /** Whether the `extend` at `i` names its type (dotted or not) and opens a block. */
  const opensExtend = (): boolean => {
    for (let k = i + 1; k < tokens.length; k++) {
      const t = tokens[k]!.text
      if (t === '{') return k > i + 1
      if (t !== '.' && !/^[A-Za-z_]\w*$/.test(t)) return false
    }
    return false
  }
  /**
   * `extend Type { ... }`: its fields are keyed in `scope`, the package or
   * message the block is written in, where protobufjs declares them.
   */
  const parseExtend = (scope: string): void => {
    // protobufjs takes fields here (no options): a proto2 group is a message of `scope` too, as parse declares it.
    body(() => parseField(scope))
  }
  const parseEnum = (scope: string, from?: Token): void => {
    const start = from ?? tokens[i]
    const fullName = qualify(scope, at(1) ?? '')
    record(declarationKey('enum', fullName), start)
    i += 2
    body(() => {
      if (at() === 'option' || at() === 'reserved') return skipStatement()
      record(declarationKey('value', fullName, at() ?? ''), tokens[i])
      skipStatement()
    })
  }
  const parseService = (): void => {
    const start = tokens[i]
    const fullName = qualify(pkg, at(1) ?? '')
    record(declarationKey('service', fullName), start)
    i += 2
    body(() => {
      if (at() === 'rpc') record(declarationKey('method', fullName, at(1) ?? ''), tokens[i])
      skipRpc()
    })
  }
  /** An rpc's parentheses do not end it: skip to its `;` or past its `{...}` block. */
  const skipRpc = (): void => {
    while (i < tokens.length && at() !== ';' && at() !== '{' && at() !== '}') i++
    if (at() === ';') i++
    else if (at() === '{') skipStatement()
  }

  while (i < tokens.length) {
    const start = tokens[i]!
    const modifier = visibility()
    const t = at()
    if (t === 'package') {
      const parts: string[] = []
      i++
      while (i < tokens.length && at() !== ';') parts.push(tokens[i++]!.text)
      pkg = parts.join('')
      i++
    } else if (t === 'import') {
      let k = i + 1
      while (k < tokens.length && !/^["']/.test(tokens[k]!.text) && tokens[k]!.text !== ';') k++
      const literal = tokens[k]?.text ?? ''
      if (/^["']/.test(literal)) imports.push({ path: unquote(literal), line: start.line, column: start.column })
      skipStatement()
    } else if (t === 'message' && opensBlock()) parseMessage(pkg, modifier)
    else if (t === 'enum' && opensBlock()) parseEnum(pkg, modifier)
    else if (t === 'service') parseService()
    else if (t === 'extend' && opensExtend()) parseExtend(pkg)
    else if (t === ';') i++
    else skipStatement()
    if (tokens[i] === start) i++
  }
  return { declarations, imports, packageName: pkg }
}

/** The value of a string literal token (quotes removed, simple escapes undone). */
function unquote(literal: string): string {
  return literal.slice(1, -1).replace(/\\(.)/g, '$1')
}
