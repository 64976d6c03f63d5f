/**
 * The deepest chain of distinct messages a tool may reach. Much deeper
 * chains overflow the stack of the build stages (schemas, validators), and
 * their values could not be decoded anyway: protobuf JSON stops at 100 levels.
 */
import protobuf from 'protobufjs'
import { protoError } from './errors.ts'
import { declarationKey } from './scan-declarations.ts'
import type { Sources } from './to-model.ts'

/** Messages a tool's request or response may nest, counting the outermost. */
export const MAX_MESSAGE_NESTING = 256

const isMessageType = (value: unknown): value is protobuf.Type =>
  value instanceof protobuf.Type && !value.fullName.startsWith('.google.protobuf.')

/**
 * Throws a `PROTO_TYPE` error at the declaration of the first RPC message
 * that nests more than {@link MAX_MESSAGE_NESTING} distinct messages (a
 * message reaching itself again is a recursion, which schemas express with
 * `$ref`, and does not count). The walk stops at the limit, so its own depth is bounded.
 */
export function checkNesting(root: protobuf.Root, sources: Sources): void {
  // The deepest chain below each message, capped at the limit + 1 (enough to know it is too deep).
  const memo = new Map<protobuf.Type, number>()
  const depthOf = (type: protobuf.Type, path: Set<protobuf.Type>): number => {
    const known = memo.get(type)
    if (known !== undefined) return known
    if (path.size > MAX_MESSAGE_NESTING) return 1
    path.add(type)
    let deepest = 0
    for (const field of type.fieldsArray) {
      const next = field.resolvedType
      if (!isMessageType(next) || path.has(next)) continue
      deepest = Math.max(deepest, depthOf(next, path))
      if (deepest > MAX_MESSAGE_NESTING) break
    }
    path.delete(type)
    const depth = Math.min(deepest + 1, MAX_MESSAGE_NESTING + 1)
    memo.set(type, depth)
    return depth
  }
  const services: protobuf.Service[] = []
  const collect = (ns: protobuf.NamespaceBase): void => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Service) services.push(nested)
      if (nested instanceof protobuf.Namespace) collect(nested)
    }
  }
  collect(root)
  for (const service of services) {
    for (const method of service.methodsArray) {
      for (const type of [method.resolvedRequestType, method.resolvedResponseType]) {
        if (!isMessageType(type) || depthOf(type, new Set()) <= MAX_MESSAGE_NESTING) continue
        const name = type.fullName.slice(1)
        let at = { file: type.filename ?? sources.order[0]!, line: 1, column: 1 }
        for (const [file, scanned] of sources.scanned) {
          const decl = scanned.declarations.get(declarationKey('message', name))
          if (decl) at = { file, line: decl.line, column: decl.column }
        }
        throw protoError(
          'PROTO_TYPE',
          at.file,
          at.line,
          at.column,
          `message "${name}" (of rpc ${service.name}.${method.name}) nests more than ${MAX_MESSAGE_NESTING} messages deep, ` +
            'more than the build compiles (protobuf JSON decodes 100 levels at most); flatten the chain or make it recursive',
        )
      }
    }
  }
}
