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

// Console, spawn records and shutdown, shared with the other wrappers (see the file).
import {
  builtInTools,
  enterRoot,
  loadSdk,
  quietConfigOptions,
  runLikeScheduler,
  serveTools,
} from '../shared/wrapper.mjs';

// The CLI runs in the project directory and takes it as its target directory.
enterRoot();

const core = await import('@qwen-code/qwen-code-core');
const sdk = await loadSdk((name) => import(name));

// The library's own Config, for ROOT, with no model, no telemetry and no usage
// statistics. None of the seven tools asks a model in 0.0.14 unless shell output
// summarising is configured, and it is not.
const config = new core.Config(quietConfigOptions(core));

// The seven tools, constructed as Config.createToolRegistry constructs them (with the
// default useRipgrep: false, the grep tool is GrepTool, not RipGrepTool).
const tools = builtInTools(core, config);

await serveTools(sdk, {
  info: { name: 'qwen-code-core-0.0.14', version: '0.0.14' },
  tools,
  // Already JSON Schema in this version (parametersJsonSchema).
  inputSchema: (tool) => tool.schema.parametersJsonSchema,
  // As the CLI's CoreToolScheduler does in YOLO mode (see runLikeScheduler): build,
  // execute, and hand on upstream's own convertToFunctionResponse of the result.
  run: runLikeScheduler((toolName, llmContent) =>
    core.convertToFunctionResponse(toolName, 'toolspec', llmContent),
  ),
});

