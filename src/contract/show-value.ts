/** How a wrong option value is shown in a message: short, and never a whole object. */
export function showValue(value: unknown): string {
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'bigint') return `${value}n`
  if (value === undefined) return 'undefined'
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = Object.prototype.toString.call(value)
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}
