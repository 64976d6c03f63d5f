/**
 * The conformance fixture: what the official suite's server scenarios call
 * (`@modelcontextprotocol/conformance`, its "everything server"), written
 * with `Server.builder`, plus the tools of `conformance.proto` included from
 * a `?mcp` server whose `Count` logs and reports progress. It takes the
 * `Server` class and the proto's server as arguments, so the same module
 * runs from source (vitest) and inside a Vite dev app (the installed package).
 */
import type { CallContext, Server } from '../../src/entries/runtime.ts'

// A 1x1 red PNG and a minimal WAV file.
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
export const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA='

const NO_ARGS = { type: 'object', properties: {} }
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
/** Waits `ms`, or rejects once `signal` aborts (a cancelled task stops). */
const work = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
  })
const text = (value: string) => ({ content: [{ type: 'text', text: value }] })

/** Binds the `Count` RPC of `conformance.proto` on its server. */
export function implementCount(proto: Server): Server {
  return proto.implement('ConformanceService', {
    Count: async (req: { n?: number }, ctx: CallContext) => {
      const n = req.n ?? 0
      for (let i = 1; i <= n; i++) {
        await ctx.log?.('info', `counted ${i} of ${n}`, 'count')
        await ctx.progress?.(i, `step ${i}`, n)
      }
      return { counted: n }
    },
  })
}

/** An elicitation form asking for one field of `type`. */
const form = (message: string, field: string, type = 'string') => ({
  message,
  requestedSchema: { type: 'object', properties: { [field]: { type } }, required: [field] },
})
const sampleOf = (prompt: string, maxTokens = 100) => ({
  messages: [{ role: 'user' as const, content: { type: 'text', text: prompt } }],
  maxTokens,
})
/** An accepted answer's field, as text. */
const field = (answer: { content?: Record<string, unknown> }, name: string): string => String(answer.content?.[name] ?? '')

/** The fixture server: `ServerClass` is the runtime's `Server`, `proto` the `?mcp` server of conformance.proto (bound). */
export function everythingServer(ServerClass: typeof Server, proto: Server): Server {
  const server: Server = ServerClass.builder('mcp-conformance-test-server')
    .version('1.0.0')
    .include(proto)
    // Content types.
    .tool({ name: 'test_simple_text', description: 'Tests simple text content response', inputSchema: NO_ARGS }, () =>
      text('This is a simple text response for testing.'),
    )
    .tool({ name: 'test_image_content', description: 'Tests image content response', inputSchema: NO_ARGS }, () => ({
      content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
    }))
    .tool({ name: 'test_audio_content', description: 'Tests audio content response', inputSchema: NO_ARGS }, () => ({
      content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
    }))
    .tool({ name: 'test_embedded_resource', description: 'Tests embedded resource content response', inputSchema: NO_ARGS }, () => ({
      content: [
        {
          type: 'resource',
          resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
        },
      ],
    }))
    .tool(
      {
        name: 'test_multiple_content_types',
        description: 'Tests response with multiple content types (text, image, resource)',
        inputSchema: NO_ARGS,
      },
      () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: PNG, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: JSON.stringify({ test: 'data', value: 123 }),
            },
          },
          { type: 'resource_link', uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' },
        ],
      }),
    )
    // Logging and progress.
    .tool(
      { name: 'test_tool_with_logging', description: 'Tests tool that emits log messages during execution', inputSchema: NO_ARGS },
      async (_args, ctx) => {
        await ctx.log?.('info', 'Tool execution started')
        await sleep(50)
        await ctx.log?.('info', 'Tool processing data')
        await sleep(50)
        await ctx.log?.('info', 'Tool execution completed')
        return text('Tool with logging executed successfully')
      },
    )
    .tool(
      { name: 'test_tool_with_progress', description: 'Tests tool that reports progress notifications', inputSchema: NO_ARGS },
      async (_args, ctx) => {
        for (const step of [0, 50, 100]) {
          await ctx.progress?.(step, `Completed step ${step} of 100`, 100)
          if (step < 100) await sleep(50)
        }
        return text(String(ctx.meta?.progressToken ?? 'no progress token'))
      },
    )
    .tool({ name: 'test_error_handling', description: 'Tests error response handling', inputSchema: NO_ARGS }, () => {
      throw new Error('This tool intentionally returns an error for testing')
    })
    // Asking the client: sampling and elicitation.
    .tool(
      {
        name: 'test_sampling',
        description: 'Tests server-initiated sampling (LLM completion request)',
        inputSchema: {
          type: 'object',
          properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
          required: ['prompt'],
        },
      },
      async (args: { prompt: string }, ctx) => {
        const answer = await ctx.sample!({ messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }], maxTokens: 100 })
        const content = Array.isArray(answer.content) ? answer.content[0] : answer.content
        return text(`LLM response: ${content?.text ?? ''}`)
      },
    )
    .tool(
      {
        name: 'test_elicitation',
        description: 'Tests server-initiated elicitation (user input request)',
        inputSchema: {
          type: 'object',
          properties: { message: { type: 'string', description: 'The message to show the user' } },
          required: ['message'],
        },
      },
      async (args: { message: string }, ctx) => {
        const answer = await ctx.elicit!({
          message: args.message,
          requestedSchema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          },
        })
        return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)
      },
    )
    .tool(
      {
        name: 'test_elicitation_sep1034_defaults',
        description: 'Tests elicitation with default values per SEP-1034',
        inputSchema: NO_ARGS,
      },
      async (_args, ctx) => {
        const answer = await ctx.elicit!({
          message: 'Please review and update the form fields with defaults',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', description: 'User name', default: 'John Doe' },
              age: { type: 'integer', description: 'User age', default: 30 },
              score: { type: 'number', description: 'User score', default: 95.5 },
              status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
              verified: { type: 'boolean', description: 'Verification status', default: true },
            },
            required: [],
          },
        })
        return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)
      },
    )
    .tool(
      {
        name: 'test_elicitation_sep1330_enums',
        description: 'Tests elicitation with enum schema improvements per SEP-1330',
        inputSchema: NO_ARGS,
      },
      async (_args, ctx) => {
        const titled = (prefix: string, word: string) =>
          [1, 2, 3].map((i) => ({ const: `${prefix}${i}`, title: `${['First', 'Second', 'Third'][i - 1]} ${word}` }))
        const answer = await ctx.elicit!({
          message: 'Please select options from the enum fields',
          requestedSchema: {
            type: 'object',
            properties: {
              untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
              titledSingle: { type: 'string', description: 'Select one option with titles', oneOf: titled('value', 'Option') },
              legacyEnum: {
                type: 'string',
                description: 'Select one option (legacy)',
                enum: ['opt1', 'opt2', 'opt3'],
                enumNames: ['Option One', 'Option Two', 'Option Three'],
              },
              untitledMulti: {
                type: 'array',
                description: 'Select multiple options',
                minItems: 1,
                maxItems: 3,
                items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
              },
              titledMulti: {
                type: 'array',
                description: 'Select multiple options with titles',
                minItems: 1,
                maxItems: 3,
                items: { anyOf: titled('value', 'Choice') },
              },
            },
            required: [],
          },
        })
        return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)
      },
    )
    .tool(
      {
        name: 'json_schema_2020_12_tool',
        description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          $defs: {
            address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
          },
          properties: {
            name: { type: 'string' },
            address: { $ref: '#/$defs/address' },
            contactMethod: { type: 'string', enum: ['phone', 'email'] },
            phone: { type: 'string' },
            email: { type: 'string' },
          },
          allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
          if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
          then: { required: ['phone'] },
          else: { required: ['email'] },
          additionalProperties: false,
        },
      },
      (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
    )
    // The Tasks extension (SEP-2663): tools that may or must run as tasks, as the tasks-* scenarios name them.
    .tool(
      {
        name: 'greet',
        description: 'Greets by name, at once (never a task)',
        inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      (args: { name: string }) => text(`Hello, ${args.name}!`),
    )
    .tool(
      {
        name: 'slow_compute',
        description: 'Works for the given seconds (a task when the client can take one)',
        inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } } },
        execution: { taskSupport: 'optional' },
      },
      async (args: { seconds?: number; label?: string }, ctx) => {
        await work((args.seconds ?? 0) * 1000, ctx.signal)
        return text(`computed ${args.label ?? 'it'} in ${args.seconds ?? 0}s`)
      },
    )
    .tool(
      {
        name: 'failing_job',
        description: 'Fails as a tool after a second (only as a task)',
        inputSchema: NO_ARGS,
        execution: { taskSupport: 'required' },
      },
      async (_a, ctx) => {
        await work(1000, ctx.signal)
        return { content: [{ type: 'text', text: 'the job failed' }], isError: true }
      },
    )
    .tool(
      {
        name: 'protocol_error_job',
        description: 'Fails with a JSON-RPC error (a task that fails)',
        inputSchema: NO_ARGS,
        execution: { taskSupport: 'optional' },
      },
      async (_a, ctx) => {
        await work(100, ctx.signal)
        throw Object.assign(new Error('the job broke down'), { code: -32603 })
      },
    )
    .tool(
      {
        name: 'confirm_delete',
        description: 'Looks a file up, then asks whether to delete it (the task waits for the answer)',
        inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
        execution: { taskSupport: 'optional' },
      },
      async (args: { filename: string }, ctx) => {
        await work(50, ctx.signal)
        const answer = await ctx.elicit!(form(`Delete ${args.filename}?`, 'confirm', 'boolean'))
        return text(answer.action === 'accept' && answer.content?.confirm ? `deleted ${args.filename}` : `kept ${args.filename}`)
      },
    )
    .tool(
      {
        name: 'multi_input',
        description: 'Asks two questions at once inside its task',
        inputSchema: NO_ARGS,
        execution: { taskSupport: 'optional' },
      },
      async (_a, ctx) => {
        await work(50, ctx.signal)
        const [first, second] = await Promise.all([ctx.elicit!(form('First name?', 'name')), ctx.elicit!(form('Second name?', 'name'))])
        return text(`${field(first, 'name')} and ${field(second, 'name')}`)
      },
    )
    .tool(
      {
        name: 'test_tool_with_task',
        description: 'Asks a name in a round of the call, then works on as a task',
        inputSchema: NO_ARGS,
        execution: { taskSupport: 'required' },
      },
      async (_a, ctx) => {
        const answer = await ctx.elicit!(form('What is your name?', 'name'), { key: 'user_name' })
        await work(100, ctx.signal)
        return text(`Hello, ${field(answer, 'name')}, from the task`)
      },
    )
    // A parameter mirrored into an HTTP header (SEP-2243): Mcp-Param-Region must agree with the body.
    .tool(
      {
        name: 'test_header_params',
        description: 'Echoes a region sent in the Mcp-Param-Region header too',
        inputSchema: {
          type: 'object',
          properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
          required: ['region'],
        },
      },
      (args: { region: string }) => text(`region ${args.region}`),
    )
    // 2026-07-28 diagnostics (server-stateless): a question needing an undeclared capability, a question on a
    // response stream, a log without a requested level, and list changes for listen streams.
    .tool(
      { name: 'test_missing_capability', description: 'Asks the client to sample (needs sampling)', inputSchema: NO_ARGS },
      async (_a, ctx) => {
        await ctx.sample!(sampleOf('Say hello'))
        return text('Success')
      },
    )
    .tool({ name: 'test_streaming_elicitation', description: 'Elicits while its call is open', inputSchema: NO_ARGS }, async (_a, ctx) => {
      const answer = await ctx.elicit!(form('Continue?', 'ok', 'boolean'), { key: 'confirm' })
      return text(`Streaming complete: ${answer.action}`)
    })
    .tool({ name: 'test_logging_tool', description: 'Logs one entry', inputSchema: NO_ARGS }, async (_a, ctx) => {
      await ctx.log?.('info', 'Diagnostic trace logging activated')
      return text('Logging evaluated')
    })
    .tool({ name: 'test_trigger_tool_change', description: 'Adds or removes a tool', inputSchema: NO_ARGS }, () => {
      const handle = server.handle()
      if (!handle.removeTool('test_dynamic_tool'))
        handle.addTool({ name: 'test_dynamic_tool', description: 'Comes and goes', inputSchema: NO_ARGS }, () => text('dynamic'))
      return text('Mutation triggered')
    })
    .tool({ name: 'test_trigger_prompt_change', description: 'Adds or removes a prompt', inputSchema: NO_ARGS }, () => {
      const handle = server.handle()
      if (!handle.removePrompt('test_dynamic_prompt'))
        handle.addPrompt({ name: 'test_dynamic_prompt', description: 'Comes and goes' }, () => 'dynamic')
      return text('Mutation triggered')
    })
    // Multi-round-trip requests (SEP-2322): each question is ctx.elicit/sample/listRoots, keyed as the scenarios name them.
    .tool(
      { name: 'test_input_required_result_elicitation', description: 'MRTR: one elicitation', inputSchema: NO_ARGS },
      async (_a, ctx) => {
        const answer = await ctx.elicit!(form('What is your name?', 'name'), { key: 'user_name' })
        return text(`Hello, ${field(answer, 'name')}!`)
      },
    )
    .tool(
      { name: 'test_input_required_result_sampling', description: 'MRTR: one sampling request', inputSchema: NO_ARGS },
      async (_a, ctx) => {
        const answer = await ctx.sample!(sampleOf('What is the capital of France?'), { key: 'capital_question' })
        const content = Array.isArray(answer.content) ? answer.content[0] : answer.content
        return text(`Sampling result: ${String(content?.text ?? '')}`)
      },
    )
    .tool(
      { name: 'test_input_required_result_list_roots', description: 'MRTR: one roots/list request', inputSchema: NO_ARGS },
      async (_a, ctx) => {
        const { roots } = await ctx.listRoots!({ key: 'client_roots' })
        return text(`Found ${roots.length} root(s)`)
      },
    )
    .tool(
      { name: 'test_input_required_result_request_state', description: 'MRTR: a question and requestState', inputSchema: NO_ARGS },
      async (_a, ctx) => {
        const answer = await ctx.elicit!(form('Please confirm', 'ok', 'boolean'), { key: 'confirm' })
        return text(`state-ok: confirmed=${String(answer.content?.ok)}`)
      },
    )
    .tool(
      { name: 'test_input_required_result_multiple_inputs', description: 'MRTR: three questions at once', inputSchema: NO_ARGS },
      async (_a, ctx) => {
        const [name, greeting, roots] = await Promise.all([
          ctx.elicit!(form('What is your name?', 'name'), { key: 'user_name' }),
          ctx.sample!(sampleOf('Generate a greeting', 50), { key: 'greeting' }),
          ctx.listRoots!({ key: 'client_roots' }),
        ])
        const said = Array.isArray(greeting.content) ? greeting.content[0] : greeting.content
        return text(`Name: ${field(name, 'name')}; Greeting: ${String(said?.text ?? '')}; Roots: ${roots.roots.length}`)
      },
    )
    .tool({ name: 'test_input_required_result_multi_round', description: 'MRTR: two rounds', inputSchema: NO_ARGS }, async (_a, ctx) => {
      const name = await ctx.elicit!(form('Step 1: What is your name?', 'name'), { key: 'step1' })
      const color = await ctx.elicit!(form('Step 2: What is your favorite color?', 'color'), { key: 'step2' })
      return text(`Multi-round complete for ${field(name, 'name')} who likes ${field(color, 'color')}`)
    })
    .tool(
      { name: 'test_input_required_result_tampered_state', description: 'MRTR: an HMAC-sealed requestState', inputSchema: NO_ARGS },
      async (_a, ctx) => {
        await ctx.elicit!(form('Please confirm', 'ok', 'boolean'), { key: 'confirm' })
        return text('integrity-ok: state verified')
      },
    )
    .tool(
      { name: 'test_input_required_result_capabilities', description: 'MRTR: asks only what the client can answer', inputSchema: NO_ARGS },
      async (_a, ctx) => {
        const caps = ctx.clientCapabilities ?? {}
        const asked: Array<Promise<unknown>> = []
        if (caps.elicitation) asked.push(ctx.elicit!(form('Elicitation input', 'value'), { key: 'elicit_input' }))
        if (caps.sampling) asked.push(ctx.sample!(sampleOf('Sample request', 50), { key: 'sample_input' }))
        if (asked.length === 0) return text('No supported capabilities declared')
        await Promise.all(asked)
        return text(`capabilities-ok: received ${Object.keys(ctx.inputResponses ?? {}).join(',')}`)
      },
    )
    // Resources.
    .resource(
      {
        uri: 'test://static-text',
        name: 'static-text',
        title: 'Static Text Resource',
        description: 'A static text resource for testing',
        mimeType: 'text/plain',
      },
      () => 'This is the content of the static text resource.',
    )
    .resource(
      {
        uri: 'test://static-binary',
        name: 'static-binary',
        title: 'Static Binary Resource',
        description: 'A static binary resource (image) for testing',
        mimeType: 'image/png',
      },
      (uri) => ({ contents: [{ uri, mimeType: 'image/png', blob: PNG }] }),
    )
    .resource(
      {
        uri: 'test://watched-resource',
        name: 'watched-resource',
        title: 'Watched Resource',
        description: 'A resource clients may subscribe to',
        mimeType: 'text/plain',
      },
      () => 'Watched resource content',
    )
    .resourceTemplate(
      {
        uriTemplate: 'test://template/{id}/data',
        name: 'template',
        title: 'Resource Template',
        description: 'A resource template with parameter substitution',
        mimeType: 'application/json',
      },
      (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
      {
        complete: { id: (value) => ['123', '456', '789'].filter((id) => id.startsWith(value)) },
      },
    )
    // Prompts.
    .prompt(
      { name: 'test_simple_prompt', title: 'Simple Test Prompt', description: 'A simple prompt without arguments' },
      () => 'This is a simple prompt for testing.',
    )
    .prompt(
      {
        name: 'test_prompt_with_arguments',
        title: 'Prompt With Arguments',
        description: 'A prompt with required arguments',
        arguments: [
          { name: 'arg1', description: 'First test argument', required: true },
          { name: 'arg2', description: 'Second test argument', required: true },
        ],
      },
      ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
      {
        complete: { arg1: (value) => ['paris', 'park', 'party'].filter((word) => word.startsWith(value)) },
      },
    )
    .prompt(
      {
        name: 'test_prompt_with_embedded_resource',
        title: 'Prompt With Embedded Resource',
        description: 'A prompt that includes an embedded resource',
        arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      },
      ({ resourceUri }) => ({
        messages: [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: { uri: resourceUri!, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
            },
          },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      }),
    )
    .prompt({ name: 'test_prompt_with_image', title: 'Prompt With Image', description: 'A prompt that includes image content' }, () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }))
    .prompt({ name: 'test_input_required_result_prompt', description: 'MRTR: a prompt that asks for context' }, async (_args, ctx) => {
      const answer = await ctx.elicit!(form('What context should the prompt use?', 'context'), { key: 'user_context' })
      return `Prompt with context: ${field(answer, 'context')}`
    })
    .build()
  return server
}
