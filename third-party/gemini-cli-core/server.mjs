#!/usr/bin/env node
// An MCP stdio server that serves the built-in tools of @google/gemini-cli-core 0.1.13,
// unmodified, so that toolspec's gemini-cli suite can be run against the real program.
//
//   node server.mjs ROOT
//
// What it does, and why each step is there, is written up in README.md beside this
// file. In short: it builds the library's own Config for ROOT, constructs the seven
// tool classes the way the CLI's tool registry does, and answers tools/call by calling
// the tool's `execute` as the CLI's scheduler does in YOLO mode. It never edits what a
// tool returns.

import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

// --- stdout carries JSON-RPC only --------------------------------------------------
// The library logs with console.log and console.debug (e.g. "Data collection is
// disabled." from Config, "GrepLogic: ..." from the grep tool). Those would corrupt
// the JSON-RPC stream, so every console method writes to stderr. This must happen
// before the library is loaded.
for (const method of ['log', 'info', 'debug', 'warn', 'trace']) {
  console[method] = (...args) => console.error(...args);
}

// --- every child the library spawns is remembered ----------------------------------
// The shell tool runs `bash -c` as the leader of its own process group and leaves
// background jobs (`sleep 60 &`) running after it returns, as upstream intends. The
// wrapper must not leave them behind when its stdin closes, so it records the pid of
// each spawned child (a detached child's pid is its process group id) and signals
// those groups on shutdown. The wrapper changes nothing about how a child is started.
const spawnedChildren = new Set();
const originalSpawn = childProcess.spawn;
childProcess.spawn = function recordingSpawn(...args) {
  const child = originalSpawn.apply(this, args);
  const options = args.find((a, i) => i > 0 && a && typeof a === 'object' && !Array.isArray(a));
  if (child.pid) {
    const entry = { pid: child.pid, group: Boolean(options && options.detached) };
    spawnedChildren.add(entry);
    // A plain child is gone once it exits. A group leader's background jobs may
    // outlive it, so its group is kept until shutdown.
    if (!entry.group) child.once('exit', () => spawnedChildren.delete(entry));
  }
  return child;
};
// The library imports `spawn` by name; make that binding see the recording version.
syncBuiltinESMExports();

const root = process.argv[2];
if (!root) {
  console.error('usage: node server.mjs ROOT');
  process.exit(2);
}
try {
  // The CLI runs in the project directory and takes it as its target directory.
  process.chdir(root);
} catch (error) {
  console.error(`cannot enter ${root}: ${error instanceof Error ? error.message : error}`);
  process.exit(2);
}

const core = await import('@google/gemini-cli-core');
const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = await import(
  '@modelcontextprotocol/sdk/types.js'
);

// --- no model --------------------------------------------------------------------
// write_file and replace ask the model (through the GeminiClient) to repair
// over-escaped strings and unmatched old_strings, and look through the conversation
// history for earlier edits. There is no model and no conversation here: the history
// is empty and every model request fails. Upstream catches such a failure, logs it
// and keeps the strings it was given, which is what the wrapper then does.
const noModelClient = {
  async getHistory() {
    return [];
  },
  async generateJson() {
    throw new Error('toolspec wrapper: no model is attached, so no correction is made');
  },
};

/** The library's own Config, for ROOT, with no model client and no telemetry. */
class WrapperConfig extends core.Config {
  getGeminiClient() {
    return noModelClient;
  }
}

const config = new WrapperConfig({
  sessionId: core.sessionId,
  targetDir: process.cwd(),
  cwd: process.cwd(),
  debugMode: false,
  approvalMode: core.ApprovalMode.YOLO,
  usageStatisticsEnabled: false,
  telemetry: { enabled: false },
  checkpointing: false,
});

// The seven tools, constructed as Config.createToolRegistry constructs them.
const tools = new Map(
  [
    core.LSTool,
    core.ReadFileTool,
    core.WriteFileTool,
    core.EditTool,
    core.ShellTool,
    core.GrepTool,
    core.GlobTool,
  ].map((ToolClass) => {
    const tool = new ToolClass(config);
    return [tool.name, tool];
  }),
);

/** Requests in flight, so that a shutdown can cancel them as the CLI's Esc does. */
const inFlight = new Set();

const server = new Server(
  { name: 'gemini-cli-core-0.1.13', version: '0.1.13' },
  { capabilities: { tools: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [...tools.values()].map((tool) => ({
    name: tool.name,
    title: tool.displayName,
    description: tool.description,
    // The declared schema uses @google/genai's upper-case type names; upstream's own
    // converter turns it into the JSON Schema it validates against.
    inputSchema: core.SchemaValidator.toObjectSchema(tool.schema.parameters),
  })),
}));

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name } = request.params;
  const tool = tools.get(name);
  if (!tool) {
    // What the SDK's McpServer answers for a tool it does not have.
    throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
  }
  // The CLI hands a tool the model's function-call args, `{}` when there are none.
  const args = request.params.arguments ?? {};
  const controller = new AbortController();
  const cancel = () => controller.abort();
  extra.signal.addEventListener('abort', cancel);
  inFlight.add(controller);
  try {
    // As the CLI's CoreToolScheduler does in YOLO mode: no confirmation, straight to
    // execute, which validates its parameters itself and words the rejection.
    const result = await tool.execute(args, controller.signal);
    return toCallToolResult(name, result.llmContent, args);
  } catch (error) {
    // The only error upstream flags as such: the scheduler turns a thrown error into
    // a function response `{error: message}`.
    return {
      content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
      isError: true,
    };
  } finally {
    inFlight.delete(controller);
    extra.signal.removeEventListener('abort', cancel);
  }
});

/**
 * The tool's llmContent as MCP content. A string is passed on unchanged. Anything else
 * (read_file's inline image, audio or PDF data) goes through upstream's own
 * convertToFunctionResponse, so the text is what the model is told, and the data
 * follows as MCP content.
 */
function toCallToolResult(toolName, llmContent, args) {
  if (typeof llmContent === 'string') {
    return { content: [{ type: 'text', text: llmContent }] };
  }
  const converted = core.convertToFunctionResponse(toolName, 'toolspec', llmContent);
  const parts = Array.isArray(converted) ? converted : [converted];
  const content = [];
  for (const part of parts) {
    if (part.functionResponse) {
      const response = part.functionResponse.response ?? {};
      const text = response.output ?? response.error ?? JSON.stringify(response);
      content.push({ type: 'text', text: String(text) });
    } else if (typeof part.text === 'string') {
      content.push({ type: 'text', text: part.text });
    } else if (part.inlineData) {
      content.push(inlineDataContent(part.inlineData, args));
    }
  }
  return { content };
}

function inlineDataContent({ data, mimeType }, args) {
  if (mimeType.startsWith('image/')) return { type: 'image', data, mimeType };
  if (mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType };
  const uri =
    typeof args.absolute_path === 'string'
      ? pathToFileURL(args.absolute_path).href
      : 'about:blank';
  return { type: 'resource', resource: { uri, mimeType, blob: data } };
}

// --- shutdown ----------------------------------------------------------------------
let shuttingDown = false;
async function shutdown(exitCode) {
  if (shuttingDown) return;
  shuttingDown = true;
  // Cancel running calls: the shell tool then signals its own process group.
  for (const controller of inFlight) controller.abort();
  signalChildren('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 200));
  signalChildren('SIGKILL');
  process.exit(exitCode);
}

function signalChildren(signal) {
  for (const entry of spawnedChildren) {
    try {
      process.kill(entry.group ? -entry.pid : entry.pid, signal);
    } catch {
      // Already gone (ESRCH): nothing to stop.
      spawnedChildren.delete(entry);
    }
  }
}

process.stdin.on('end', () => shutdown(0));
process.stdin.on('close', () => shutdown(0));
process.on('SIGTERM', () => shutdown(143));
process.on('SIGINT', () => shutdown(130));

await server.connect(new StdioServerTransport());
