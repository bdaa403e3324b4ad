import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ParleyError, unwrap, type Parley, type paths } from '../sdk/index.ts';

// The MCP tools: each is one or two requests of the public API made with the key the MCP client
// gave, so the server's own validation, workspace scoping and limits apply, and a refusal comes
// back as the API worded it (an error result naming the field), never as a crash.

type Json<P extends keyof paths, M extends 'post' | 'put'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
type AgentFields = NonNullable<Json<'/v2/assistants', 'post'>['agent']>;
type CallQuery = NonNullable<paths['/v2/calls']['get']['parameters']['query']>;

const id = (what: string) => z.string().min(1).max(100).describe(what);
const page = {
  limit: z.number().int().min(1).max(100).optional().describe('Items per page (default 20).'),
  offset: z.number().int().min(0).optional().describe('Index of the first item (default 0).'),
};
const agentFields = {
  prompt: z.string().optional().describe("The agent's instructions."),
  greeting_message: z.string().optional().describe('What the agent says first.'),
  greeting_message_mode: z.enum(['human', 'agent_static', 'agent_dynamic']).optional(),
  language: z.string().optional().describe('A language tag, e.g. en-US.'),
  voice_id: z.string().optional(),
  patience_level: z
    .enum(['low', 'medium', 'high'])
    .optional()
    .describe('How long the agent waits for the caller.'),
};
const CALL_STATUSES = [
  'pending',
  'ringing',
  'in-progress',
  'completed',
  'no-answer',
  'busy',
  'failed',
  'canceled',
  'user-canceled',
  'hangup_on_voicemail',
  'left_voicemail',
  'spam',
  'paused',
  'registered',
] as const satisfies readonly NonNullable<CallQuery['call_status']>[];

function result(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

/** Runs one tool's requests; an API refusal becomes an error result in the API's words. */
async function answer(run: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return result(await run());
  } catch (err) {
    if (!(err instanceof ParleyError)) throw err;
    const fields = err.errors.map((e) => `${e.loc.join('.')}: ${e.msg}`);
    const status = err.status === undefined ? '' : `${err.status} `;
    return {
      isError: true,
      content: [{ type: 'text', text: [`${status}${err.description}`, ...fields].join('\n') }],
    };
  }
}

function agentOf(fields: Partial<Record<keyof typeof agentFields, unknown>>): AgentFields {
  const agent: AgentFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) Object.assign(agent, { [key]: value });
  }
  return agent;
}

export function registerParleyTools(server: McpServer, parley: Parley): void {
  const { api } = parley;

  server.registerTool(
    'list_agents',
    { title: 'List agents', description: "The workspace's agents, newest first.", inputSchema: page },
    (args) => answer(() => unwrap(api.GET('/v2/assistants/', { params: { query: args } }))),
  );
  server.registerTool(
    'get_agent',
    {
      title: 'Get an agent',
      description: 'One agent, with its settings.',
      inputSchema: { model_id: id('The agent id.') },
    },
    ({ model_id }) =>
      answer(() => unwrap(api.GET('/v2/assistants/{model_id}', { params: { path: { model_id } } }))),
  );
  server.registerTool(
    'create_agent',
    {
      title: 'Create an agent',
      description: 'A new voice or chat agent; returns its model_id.',
      inputSchema: {
        name: z.string().min(1).describe("The agent's name."),
        type: z.enum(['outbound', 'inbound', 'widget', 'chat']).default('outbound'),
        ...agentFields,
      },
    },
    ({ name, type, ...fields }) =>
      answer(() => unwrap(api.POST('/v2/assistants', { body: { name, type, agent: agentOf(fields) } }))),
  );
  server.registerTool(
    'update_agent',
    {
      title: 'Update an agent',
      description: 'Changes the given settings of an agent; the others stay as they are.',
      inputSchema: { model_id: id('The agent id.'), name: z.string().min(1).optional(), ...agentFields },
    },
    ({ model_id, name, ...fields }) =>
      answer(() =>
        unwrap(
          api.PUT('/v2/assistants/{model_id}', {
            params: { path: { model_id } },
            body: { ...(name === undefined ? {} : { name }), agent: agentOf(fields) },
          }),
        ),
      ),
  );

  server.registerTool(
    'place_call',
    {
      title: 'Place a call',
      description: 'Calls a phone number with an agent; returns the call_id to follow it with get_call.',
      inputSchema: {
        model_id: id('The agent that calls.'),
        phone: z.string().min(1).describe('The number to call, in E.164 (+15551234567).'),
        name: z.string().describe("The callee's name."),
        from_phone_number: z.string().optional().describe('A number of the workspace to call from.'),
        custom_variables: z.record(z.string(), z.string()).optional().describe('Values for the prompt.'),
      },
    },
    ({ custom_variables, ...call }) =>
      answer(() =>
        unwrap(
          api.POST('/v2/calls', {
            body: {
              ...call,
              ...(custom_variables
                ? {
                    custom_variables: Object.entries(custom_variables).map(([key, value]) => ({
                      key,
                      value,
                    })),
                  }
                : {}),
            },
          }),
        ),
      ),
  );
  server.registerTool(
    'get_call',
    {
      title: 'Get a call',
      description: 'A call: status, transcript, analysis, collected variables and per-turn latency.',
      inputSchema: { call_id: id('The call id.') },
    },
    ({ call_id }) => answer(() => unwrap(api.GET('/v2/calls/{call_id}', { params: { path: { call_id } } }))),
  );
  server.registerTool(
    'list_calls',
    {
      title: 'List calls',
      description: 'Calls, newest first, filtered by agent, status, campaign or date.',
      inputSchema: {
        ...page,
        model_id: z.string().optional(),
        call_status: z.enum(CALL_STATUSES).optional(),
        batch_call_id: z.string().optional(),
        from_date: z.number().int().optional().describe('Calls that began at or after (ms since the epoch).'),
        to_date: z.number().int().optional().describe('Calls that ended at or before (ms since the epoch).'),
      },
    },
    (query) => answer(() => unwrap(api.GET('/v2/calls', { params: { query } }))),
  );

  server.registerTool(
    'create_campaign',
    {
      title: 'Create a campaign',
      description: 'A batch of calls by one agent to a list of numbers; returns the batch with its counters.',
      inputSchema: {
        model_id: id('The agent that calls.'),
        name: z.string().optional(),
        from_phone_number: z.string().optional(),
        recipients: z
          .array(
            z.object({
              to_phone_number: z.string().min(1),
              lead_name: z.string().optional(),
              custom_variables: z.record(z.string(), z.string()).optional(),
            }),
          )
          .min(1)
          .max(10_000),
      },
    },
    ({ recipients, ...batch }) =>
      answer(() => unwrap(api.POST('/v2/calls/batch', { body: { ...batch, tasks: recipients } }))),
  );
  server.registerTool(
    'get_campaign',
    {
      title: 'Get a campaign',
      description: "A campaign's status and counters.",
      inputSchema: { batch_call_id: id('The campaign (batch) id.') },
    },
    ({ batch_call_id }) =>
      answer(() =>
        unwrap(api.GET('/v2/calls/batch/{batch_call_id}', { params: { path: { batch_call_id } } })),
      ),
  );
  server.registerTool(
    'list_campaigns',
    { title: 'List campaigns', description: 'Campaigns, newest first.', inputSchema: page },
    (query) => answer(() => unwrap(api.GET('/v2/calls/batch', { params: { query } }))),
  );
  server.registerTool(
    'control_campaign',
    {
      title: 'Pause, resume or cancel a campaign',
      description: 'pause stops dialing new recipients; resume goes on; cancel ends it for good.',
      inputSchema: {
        batch_call_id: id('The campaign (batch) id.'),
        action: z.enum(['pause', 'resume', 'cancel']),
      },
    },
    ({ batch_call_id, action }) => {
      const params = { params: { path: { batch_call_id } } };
      return answer(() =>
        unwrap(
          action === 'pause'
            ? api.POST('/v2/calls/batch/{batch_call_id}/pause', params)
            : action === 'resume'
              ? api.POST('/v2/calls/batch/{batch_call_id}/resume', params)
              : api.POST('/v2/calls/batch/{batch_call_id}/cancel', params),
        ),
      );
    },
  );

  server.registerTool(
    'chat',
    {
      title: 'Chat with an agent',
      description:
        'Sends a message to an agent in a text chat and returns its answer. The first message of a ' +
        'chat_id starts the chat with model_id; later ones go on with it.',
      inputSchema: {
        chat_id: z.uuid().describe('Your id for the conversation: a UUID you choose.'),
        model_id: z.string().optional().describe('The agent; needed for a new chat_id.'),
        message: z.string().min(1),
      },
    },
    ({ chat_id, model_id, message }) =>
      answer(async () => {
        const path = { params: { path: { chat_id } } };
        if (model_id !== undefined) {
          const existing = await api.GET('/v2/chat/{chat_id}', path);
          if (!existing.response.ok)
            await unwrap(api.POST('/v2/chat/{chat_id}', { ...path, body: { model_id } }));
        }
        return unwrap(api.POST('/v2/chat/{chat_id}/messages', { ...path, body: { message } }));
      }),
  );

  server.registerTool(
    'run_simulation_suite',
    {
      title: 'Run a simulation suite',
      description:
        'Runs every test case of a suite against an agent with simulated callers, in the background; ' +
        'returns the session id to read the verdicts with get_simulation_session.',
      inputSchema: {
        suite_id: id('The suite.'),
        target_agent_id: id('The agent under test.'),
        max_turns: z.number().int().min(10).max(50).optional(),
      },
    },
    ({ suite_id, ...query }) =>
      answer(() =>
        unwrap(
          api.POST('/v2/simulation_suites/{suite_id}/execute', { params: { path: { suite_id }, query } }),
        ),
      ),
  );
  server.registerTool(
    'get_simulation_session',
    {
      title: 'Get a simulation session',
      description: "A suite run: each simulation's status, verdicts and transcript, and the counts.",
      inputSchema: { session_id: id('The session id.') },
    },
    ({ session_id }) =>
      answer(() =>
        unwrap(api.GET('/v2/simulations/sessions/{session_id}', { params: { path: { session_id } } })),
      ),
  );
}
