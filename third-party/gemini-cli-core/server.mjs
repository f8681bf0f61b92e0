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

// Console, spawn records and shutdown, shared with the other wrappers (see the file).
import {
  builtInTools,
  configWithoutModel,
  enterRoot,
  loadSdk,
  functionResponseContent,
  quietConfigOptions,
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
  info: { name: 'gemini-cli-core-0.1.13', version: '0.1.13' },
  tools,
  // The declared schema uses @google/genai's upper-case type names; upstream's own
  // converter turns it into the JSON Schema it validates against.
  inputSchema: (tool) => core.SchemaValidator.toObjectSchema(tool.schema.parameters),
  // As the CLI's CoreToolScheduler does in YOLO mode: no confirmation, straight to
  // execute, which validates its parameters itself and words the rejection; a thrown
  // error becomes the function response `{error: message}`.
  run: async (tool, args, signal) => {
    const result = await tool.execute(args, signal);
    return toCallToolResult(tool.name, result.llmContent, args);
  },
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
  return { content: functionResponseContent(parts, args) };
}
