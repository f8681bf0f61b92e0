#!/usr/bin/env node
// An MCP stdio server that serves the built-in tools of @google/gemini-cli-core 0.1.22
// (the last 0.1.x release), unmodified, so that toolspec can explore its gemini-cli
// suite against a release CI does not install.
//
//   node server.mjs ROOT
//
// README.md beside this file says what it does and why. In short: as the 0.1.13
// wrapper (../gemini-cli-core/server.mjs) it builds the library's own Config for ROOT
// and constructs the seven tool classes as Config.createToolRegistry does; but the
// tools of 0.1.22 are declarative (build, then execute), so tools/call goes the way
// 0.1.22's CoreToolScheduler goes in YOLO mode (runLikeScheduler). It never edits what
// a tool returns.

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

// The library's own Config for ROOT, with no model client (see noModelClient).
const config = configWithoutModel(core, quietConfigOptions(core));

const tools = builtInTools(core, config);

await serveTools(sdk, {
  info: { name: 'gemini-cli-core-0.1.22', version: '0.1.22' },
  tools,
  // Already JSON Schema in this version (parametersJsonSchema).
  inputSchema: (tool) => tool.schema.parametersJsonSchema,
  // As 0.1.22's CoreToolScheduler does in YOLO mode (core/coreToolScheduler.js: build,
  // then execute(signal, liveOutputCallback) with no live output; a result with `error`
  // set is sent as {error: message}, one without through convertToFunctionResponse).
  // In this version convertToFunctionResponse gives one part for a text and a list for
  // inline data; the scheduler sends either as it is, the wrapper takes both as a list.
  run: runLikeScheduler((toolName, llmContent) => {
    const response = core.convertToFunctionResponse(toolName, 'toolspec', llmContent);
    return Array.isArray(response) ? response : [response];
  }, undefined),
});
