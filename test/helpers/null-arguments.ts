/**
 * A client transport that sends `"arguments": null`, which MCP clients never
 * send themselves, for the tests that such a call is a call with `{}`.
 */

/** Makes every `tools/call` of `tool` a client sends carry `"arguments": null`. */
export function nullArgumentsFor<T extends { send(message: any, options?: any): Promise<void> }>(transport: T, tool: string): T {
  const send = transport.send.bind(transport)
  transport.send = (message, options) =>
    send(
      message?.method === 'tools/call' && message.params?.name === tool
        ? { ...message, params: { ...message.params, arguments: null } }
        : message,
      options,
    )
  return transport
}
