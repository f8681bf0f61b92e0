#!/usr/bin/env node
// An MCP stdio server that serves the built-in file and shell tools of
// @qwen-code/qwen-code-core 0.0.14 (a fork of gemini-cli), unmodified, so that toolspec's
// gemini-cli suite can be run against a second real program.
//
//   node server.mjs ROOT
//
// README.md beside this file says what it does and why. In short: it builds the
// library's own Config for ROOT, constructs the seven tool classes the way
// Config.createToolRegistry does, and answers tools/call the way the CLI's
// CoreToolScheduler does in YOLO mode: build the invocation (which validates the
// arguments), execute it, and hand on the function response the model would get. It
// never edits what a tool returns.

import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

// --- stdout carries JSON-RPC only --------------------------------------------------
// The library logs with console.log and console.debug; every console method goes to
// stderr, before the library is loaded.
for (const method of ['log', 'info', 'debug', 'warn', 'trace']) {
  console[method] = (...args) => console.error(...args);
}

// --- every child the library spawns is remembered ----------------------------------
// The shell tool runs `bash -c` as the leader of its own process group (detached) and
// leaves background jobs running after it returns. The wrapper records each child's
// pid (for a detached child, its process group id) and signals them on shutdown. How a
// child is started is not changed.
const spawnedChildren = new Set();
const originalSpawn = childProcess.spawn;
childProcess.spawn = function recordingSpawn(...args) {
  const child = originalSpawn.apply(this, args);
  const options = args.find((a, i) => i > 0 && a && typeof a === 'object' && !Array.isArray(a));
  if (child.pid) {
    const entry = { pid: child.pid, group: Boolean(options && options.detached) };
    spawnedChildren.add(entry);
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

const core = await import('@qwen-code/qwen-code-core');
const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = await import(
  '@modelcontextprotocol/sdk/types.js'
);

// The library's own Config, for ROOT, with no model, no telemetry and no usage
// statistics. None of the seven tools asks a model in 0.0.14 unless shell output
// summarising is configured, and it is not.
const config = new core.Config({
  sessionId: core.sessionId,
  targetDir: process.cwd(),
  cwd: process.cwd(),
  debugMode: false,
  approvalMode: core.ApprovalMode.YOLO,
  usageStatisticsEnabled: false,
  telemetry: { enabled: false },
  checkpointing: false,
});

// The seven tools, constructed as Config.createToolRegistry constructs them (with the
// default useRipgrep: false, the grep tool is GrepTool, not RipGrepTool).
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
  { name: 'qwen-code-core-0.0.14', version: '0.0.14' },
  { capabilities: { tools: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [...tools.values()].map((tool) => ({
    name: tool.name,
    title: tool.displayName,
    description: tool.description,
    // Already JSON Schema in this version (parametersJsonSchema).
    inputSchema: tool.schema.parametersJsonSchema,
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
    // CoreToolScheduler: build the invocation; a validation failure becomes the
    // function response {error: message}.
    let invocation;
    try {
      invocation = tool.build(args);
    } catch (error) {
      return errorResult(error);
    }
    // YOLO mode: no confirmation, straight to execute. A result with `error` set is
    // sent as {error: error.message}; one without, as its llmContent; a throw, as
    // {error: message}.
    const result = await invocation.execute(controller.signal);
    if (result.error !== undefined) return errorResult(new Error(result.error.message));
    return toCallToolResult(name, result.llmContent, args);
  } catch (error) {
    return errorResult(error);
  } finally {
    inFlight.delete(controller);
    extra.signal.removeEventListener('abort', cancel);
  }
});

/** The scheduler's error response {error: message}, flagged as an error. */
function errorResult(error) {
  return {
    content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
    isError: true,
  };
}

/**
 * A successful result's llmContent as MCP content, through upstream's own
 * convertToFunctionResponse: the text is the function response's `output`, which is
 * what the model is told, and inline data (read_file on an image, audio file or PDF)
 * follows as MCP content.
 */
function toCallToolResult(toolName, llmContent, args) {
  const content = [];
  for (const part of core.convertToFunctionResponse(toolName, 'toolspec', llmContent)) {
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
