/**
 * Ajv's `allErrors` code collects a callee's errors with
 * `vErrors = vErrors === null ? X.errors : vErrors.concat(X.errors);`, which
 * copies every error collected so far once per failing `$ref`: O(n²) for an
 * array of n bad items (30,000 items took 11 s). This appends in place instead.
 */

// The two shapes Ajv emits (vocabularies/core/ref.js `addErrorsFrom` and
// compile/validate/keyword.js `addErrs`): the source is a property read such as
// `validate21.errors` or `wrapper0.validate.errors`, no side effects.
const ERROR_CONCAT_RE = /\bvErrors = vErrors === null \? ([\w$]+(?:\.[\w$]+)*) : vErrors\.concat\(\1\);/g

// String literals (embedded schemas, patterns, messages) may contain any text.
const STRING_RE = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g

/**
 * Rewrites every error-array `concat` of Ajv's standalone code into a linear
 * append. Throws on any other `.concat(` in the code (outside string
 * literals): an unknown shape may be quadratic again, so it must fail the
 * build instead of shipping.
 *
 * Why appending in place is safe: a validator's error array is created during
 * one call (`vErrors = [err]`) or is, in the `vErrors === null` branch, the
 * array a callee made during its own call and left in `callee.errors`. So
 * arrays flow only upwards, two sibling calls never share one, and the
 * callee's `.errors` is read only right after that callee returns; the next
 * call of the same function assigns a fresh array before anyone reads it. Ajv
 * itself already `push`es its own errors onto such an adopted array.
 * An indexed loop, not `for...of`: it keeps the frame of a recursive
 * validator small (a `for...of` costs about a tenth of the depth).
 */
export function rewriteErrorConcat(code: string): string {
  const out = code.replace(
    ERROR_CONCAT_RE,
    (_whole, errs: string) =>
      `if(vErrors === null){vErrors = ${errs};}else{for(let i = 0, e = ${errs}; i < e.length; i++){vErrors.push(e[i]);}}`,
  )
  const scrubbed = out.replace(STRING_RE, '""')
  // Found with indexOf: a regex with leading context (`.{0,60}`) retries at every offset, slow on megabytes.
  const at = scrubbed.indexOf('.concat(')
  if (at >= 0) {
    const stray = scrubbed.slice(Math.max(0, at - 60), at).replace(/^[^]*\n/, '') + scrubbed.slice(at, at + 48).replace(/\n[^]*$/, '')
    throw new Error(
      `cannot make the validator linear: unknown \`.concat(\` in Ajv's output (\`${stray}\`); ` +
        'teach src/codegen/rewrite-error-concat.ts its shape',
    )
  }
  return out
}

// How Ajv (compile/errors.js `addError`, `code.lines`) records one error:
// `const err0 = {...};` on one line, then the push of that name.
const ERROR_PUSH_RE =
  /\bconst (err\d+) = (\{[^\n]*\});\nif\(vErrors === null\)\{\nvErrors = \[\1\];\n\}\nelse \{\nvErrors\.push\(\1\);\n\}\nerrors\+\+;/g

/**
 * Writes each of Ajv's seven-line error records as one push: the same
 * array, the same count, about a third of the bytes of a validator. Throws
 * on a record of another shape (a newer Ajv), so the build says so.
 */
export function compactErrorPushes(code: string): string {
  const out = code.replace(ERROR_PUSH_RE, (_whole, _name: string, error: string) => `(vErrors ??= []).push(${error});\nerrors++;`)
  if (/\bvErrors\.push\(err\d+\)/.test(out)) {
    throw new Error(
      "cannot compact the validator's error records: an unknown shape in Ajv's output; teach src/codegen/rewrite-error-concat.ts its shape",
    )
  }
  return out
}
