#!/usr/bin/env node
// An MCP stdio server that serves the built-in file and shell tools of
// @google/gemini-cli-core 0.22.4, unmodified, so that toolspec's gemini-cli suite can be
// run against a later release of the program seed 002 was written from.
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
  configWithoutModel,
  enterRoot,
  loadSdk,
  quietConfigOptions,
  runLikeScheduler,
  serveTools,
} from '../shared/wrapper.mjs';

// The CLI runs in the project directory and takes it as its target directory.
enterRoot();

const core = await import('@google/gemini-cli-core');
const sdk = await loadSdk((name) => import(name));

// The library's own Config, for ROOT, with no model client (see noModelClient: in
// 0.22.4 replace and write_file reach the model through the BaseLlmClient and the
// history through the GeminiClient). Two settings are chosen on purpose (README.md, "Two deliberate settings"):
// - useSmartEdit: false. The default (true) registers SmartEditTool, which asks a model
//   to repair a failed match; false registers EditTool, the plain `replace` tool that
//   seed 002 describes. Both are named `replace`.
// - useRipgrep: false. The default (true) downloads a ripgrep binary from GitHub on
//   first use and falls back to GrepTool when it cannot; false picks GrepTool at once,
//   the search tool of 0.1.13, so the run does not depend on the network.
// `model` is the CLI's default model; it only decides how inline data is attached to a
// function response (gemini-2.5-pro: beside it, not inside it).
const config = configWithoutModel(core, {
  ...quietConfigOptions(core),
  model: core.DEFAULT_GEMINI_MODEL,
  useSmartEdit: false,
  useRipgrep: false,
});

// The seven tools, constructed as Config.createToolRegistry constructs them with the
// settings above (no message bus: its integration is off by default).
const tools = builtInTools(core, config);

// The shell tool checks every command with a bash parser (tree-sitter, WebAssembly)
// that loads in the background when the tool is constructed; until it has loaded, every
// command is refused ("could not be parsed safely"). The CLI loads it at startup, long
// before a model asks for a command (its policy engine awaits the same promise), so the
// wrapper waits for it before it answers anything.
await core.initializeShellParsers();

await serveTools(sdk, {
  info: { name: 'gemini-cli-core-0.22.4', version: '0.22.4' },
  tools,
  // Already JSON Schema in this version (parametersJsonSchema).
  inputSchema: (tool) => tool.schema.parametersJsonSchema,
  // As the CLI's CoreToolScheduler does in YOLO mode (see runLikeScheduler): build,
  // execute with the config's shell execution settings (no live-output callback), and
  // hand on upstream's own convertToFunctionResponse for the active model.
  run: runLikeScheduler(
    (toolName, llmContent) =>
      core.convertToFunctionResponse(toolName, 'toolspec', llmContent, config.getActiveModel()),
    undefined,
    config.getShellExecutionConfig(),
  ),
});
