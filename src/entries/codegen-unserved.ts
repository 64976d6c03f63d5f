/**
 * What `unplugin-proto-mcp/codegen-v<n>` resolves to for every version this
 * package does not serve (package.json's `./codegen-v*` pattern, the
 * version in the query): a generated module built for it fails at load,
 * with a message naming both versions, instead of running against a
 * runtime it was not written for.
 */
import { codegenUnserved } from '../contract/index.ts'

throw new Error(codegenUnserved(new URL(import.meta.url).searchParams.get('codegen')))
