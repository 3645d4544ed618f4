// A servlet in the hyper-mcp / mcp.run ABI, as a test fixture for the
// host's compatibility loader: describe lists MCP tools, call takes
// {"params": {"name", "arguments"}} and returns an MCP CallToolResult.
import { Host } from "@extism/as-pdk";

function output(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

export function describe(): i32 {
  output(`{"tools":[` +
    `{"name":"shout","description":"Upper-cases text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]},"annotations":{"readOnlyHint":true}},` +
    `{"name":"touch","description":"Pretends to change something.","inputSchema":{"type":"object"}}]}`);
  return 0;
}

// call answers shout with the upper-cased value of the "text" argument
// (found by a plain scan: enough for a fixture) and touch with an error
// result, to show isError coming through.
export function call(): i32 {
  const req = Host.inputString();
  if (req.includes(`"name":"touch"`)) {
    output(`{"content":[{"type":"text","text":"touch failed on purpose"}],"isError":true}`);
    return 0;
  }
  const key = `"text":"`;
  const at = req.indexOf(key);
  let text = "";
  if (at >= 0) {
    const start = at + key.length;
    const end = req.indexOf(`"`, start);
    text = req.substring(start, end);
  }
  output(`{"content":[{"type":"text","text":"` + text.toUpperCase() + `"}]}`);
  return 0;
}
