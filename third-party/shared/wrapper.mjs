// What every thin MCP wrapper around a gemini-cli-style tool library needs, whatever
// the library: a stdout that carries JSON-RPC only, a record of every child process the
// library spawns (so none outlives the wrapper), the fixture root as the working
// folder, the MCP server with its tools/list and tools/call, the conversion of a
// function response into MCP content, and shutdown. A wrapper says only how its
// library's tools are built, described and run.
//
// It uses Node's built-in modules only (each wrapper hands it its own MCP SDK), so each
// wrapper imports it by relative path from its own folder. Import it before the library is loaded: the console and
// `spawn` must be replaced first.

import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

// --- stdout carries JSON-RPC only --------------------------------------------------
// The libraries log with console.log and console.debug (e.g. "Data collection is
// disabled." from Config, "GrepLogic: ..." from the grep tool). Those would corrupt the
// JSON-RPC stream, so every console method writes to stderr.
for (const method of ['log', 'info', 'debug', 'warn', 'trace']) {
  console[method] = (...args) => console.error(...args);
}

// --- every child the library spawns is remembered ----------------------------------
// The shell tool runs `bash -c` as the leader of its own process group and leaves
// background jobs (`sleep 60 &`) running after it returns, as upstream intends. The
// wrapper must not leave them behind when its stdin closes, so it records the pid of
// each spawned child (a detached child's pid is its process group id) and signals
// those groups on shutdown. Nothing about how a child is started changes.
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
// The libraries import `spawn` by name; make that binding see the recording version.
syncBuiltinESMExports();

/** Enters ROOT (argv[2]), the folder the CLI would run in; exits 2 without it. */
export function enterRoot() {
  const root = process.argv[2];
  if (!root) {
    console.error('usage: node server.mjs ROOT');
    process.exit(2);
  }
  try {
    process.chdir(root);
  } catch (error) {
    console.error(`cannot enter ${root}: ${error instanceof Error ? error.message : error}`);
    process.exit(2);
  }
  return root;
}

/**
 * The options of the library's own Config that every wrapper sets: ROOT (the working
 * folder) as the target, YOLO approval as the wrapper never asks, and no telemetry,
 * usage statistics or checkpointing. A wrapper adds what its version needs.
 */
export function quietConfigOptions(core) {
  return {
    sessionId: core.sessionId,
    targetDir: process.cwd(),
    cwd: process.cwd(),
    debugMode: false,
    approvalMode: core.ApprovalMode.YOLO,
    usageStatisticsEnabled: false,
    telemetry: { enabled: false },
    checkpointing: false,
  };
}

/**
 * The seven built-in tools seed 002 describes, constructed as
 * Config.createToolRegistry constructs them (the class names are the same in every
 * version wrapped here), by tool name.
 */
export function builtInTools(core, config) {
  return new Map(
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
}

/**
 * Stands in for the model clients. write_file and replace ask a model to repair
 * over-escaped strings and unmatched old_strings, and look through the conversation
 * history for earlier edits. There is no model and no conversation here: the history
 * is empty and every model request fails. Upstream catches such a failure, logs it and
 * keeps the strings it was given, which is what the wrapper then does.
 */
export const noModelClient = {
  async getHistory() {
    return [];
  },
  async generateJson() {
    throw new Error('toolspec wrapper: no model is attached, so no correction is made');
  },
};

/**
 * The library's own Config for the project folder, built from `options`, with its model
 * clients replaced by `noModelClient` (0.1.x asks the GeminiClient; 0.22 also has a
 * BaseLlmClient; a release without one never calls the override).
 */
export function configWithoutModel(core, options) {
  class WrapperConfig extends core.Config {
    getGeminiClient() {
      return noModelClient;
    }
    getBaseLlmClient() {
      return noModelClient;
    }
  }
  return new WrapperConfig(options);
}

/**
 * The parts of a function response (upstream's convertToFunctionResponse) as MCP
 * content: the text is the response's `output`, which is what the model is told, and
 * inline data (read_file on an image, audio file or PDF) follows as MCP content.
 */
export function functionResponseContent(parts, args) {
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
  return content;
}

function inlineDataContent({ data, mimeType }, args) {
  if (mimeType.startsWith('image/')) return { type: 'image', data, mimeType };
  if (mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType };
  // read_file's path argument: `absolute_path` up to gemini-cli 0.1.x, `file_path` later.
  const filePath = args.absolute_path ?? args.file_path;
  const uri = typeof filePath === 'string' ? pathToFileURL(filePath).href : 'about:blank';
  return { type: 'resource', resource: { uri, mimeType, blob: data } };
}

/**
 * The parts of the MCP SDK that `serveTools` uses, loaded through `load`, the wrapper's
 * own `(name) => import(name)`: an import resolves from the folder of the file that
 * makes it, and only the wrapper's folder has the SDK installed.
 */
export async function loadSdk(load) {
  return {
    ...(await load('@modelcontextprotocol/sdk/server/index.js')),
    ...(await load('@modelcontextprotocol/sdk/server/stdio.js')),
    ...(await load('@modelcontextprotocol/sdk/types.js')),
  };
}

/**
 * Serves `tools` (name -> tool) over MCP stdio with the wrapper's own `sdk` (Server,
 * StdioServerTransport, the two request schemas, ErrorCode, McpError): tools/list
 * describes each with `inputSchema(tool)`, tools/call hands the tool, the arguments
 * (`{}` when there are none, as the CLI passes the model's function-call args) and an
 * abort signal to `run`, whose result is sent as it is; a throw becomes
 * [`errorResult`]. An unknown name is the JSON-RPC error the SDK's McpServer gives.
 */
export async function serveTools(sdk, { info, tools, inputSchema, run }) {
  /** Requests in flight, so that a shutdown can cancel them as the CLI's Esc does. */
  const inFlight = new Set();
  const server = new sdk.Server(info, { capabilities: { tools: {} } });
  server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map((tool) => ({
      name: tool.name,
      title: tool.displayName,
      description: tool.description,
      inputSchema: inputSchema(tool),
    })),
  }));
  server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const tool = tools.get(name);
    if (!tool) {
      throw new sdk.McpError(sdk.ErrorCode.InvalidParams, `Tool ${name} not found`);
    }
    const args = request.params.arguments ?? {};
    const controller = new AbortController();
    const cancel = () => controller.abort();
    extra.signal.addEventListener('abort', cancel);
    inFlight.add(controller);
    try {
      return await run(tool, args, controller.signal);
    } catch (error) {
      return errorResult(error);
    } finally {
      inFlight.delete(controller);
      extra.signal.removeEventListener('abort', cancel);
    }
  });
  stopOnExit(inFlight);
  await server.connect(new sdk.StdioServerTransport());
}

/**
 * A `run` for [`serveTools`] that does what the CLI's CoreToolScheduler does in YOLO
 * mode with a declarative tool (`tool.build(args)`, then `invocation.execute(signal,
 * ...)`), and hands on what the model would be sent:
 * - `build` validates the arguments; if it throws, the model gets `{error: message}`;
 * - `invocation.execute(signal, ...executeArgs)` runs with no confirmation; a result
 *   with `error` set is sent as `{error: error.message}`, one without as the parts
 *   `toResponseParts(toolName, llmContent)` returns (the library's own
 *   convertToFunctionResponse); a throw is sent as `{error: message}`.
 */
export function runLikeScheduler(toResponseParts, ...executeArgs) {
  return async (tool, args, signal) => {
    let invocation;
    try {
      invocation = tool.build(args);
    } catch (error) {
      return errorResult(error);
    }
    const result = await invocation.execute(signal, ...executeArgs);
    if (result.error !== undefined) return errorResult(new Error(result.error.message));
    return { content: functionResponseContent(toResponseParts(tool.name, result.llmContent), args) };
  };
}

/**
 * The CLI scheduler's error response, `{error: message}`: the message, flagged as an
 * error (the only answer upstream flags as one).
 */
export function errorResult(error) {
  return {
    content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
    isError: true,
  };
}

/**
 * Stops on stdin's end (the harness closes it), SIGTERM or SIGINT: aborts the calls
 * in `inFlight` (the shell tool then signals its own process group), then signals every
 * recorded child, TERM first and KILL a moment later.
 */
function stopOnExit(inFlight) {
  let shuttingDown = false;
  const shutdown = async (exitCode) => {
    if (shuttingDown) return;
    shuttingDown = true;
    for (const controller of inFlight) controller.abort();
    signalChildren('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    signalChildren('SIGKILL');
    process.exit(exitCode);
  };
  process.stdin.on('end', () => shutdown(0));
  process.stdin.on('close', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(143));
  process.on('SIGINT', () => shutdown(130));
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
