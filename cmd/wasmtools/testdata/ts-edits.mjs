// ts-edits.mjs drives `wasmtools serve --http` with the official
// TypeScript SDK client: two sessions at once, each reading a file and
// then appending a line to it through Edit, n times. It prints, as JSON,
// how many edits each session saw succeed and fail.
//
// Usage: node ts-edits.mjs SDK_DIR URL FILE N
// SDK_DIR is the folder of @modelcontextprotocol/sdk (passed in because
// it lives under build/npm, not beside this script).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [sdkDir, url, file, n] = process.argv.slice(2);
const { Client } = await import(pathToFileURL(join(sdkDir, "dist/esm/client/index.js")).href);
const { StreamableHTTPClientTransport } = await import(
  pathToFileURL(join(sdkDir, "dist/esm/client/streamableHttp.js")).href
);

async function session(name) {
  const client = new Client({ name, version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  let ok = 0;
  let failed = 0;
  for (let i = 0; i < Number(n); i++) {
    await client.callTool({ name: "Read", arguments: { file_path: file } });
    const r = await client.callTool({
      name: "Edit",
      arguments: { file_path: file, old_string: "end\n", new_string: `${name} ${i}\nend\n` },
    });
    if (r.isError) failed++;
    else ok++;
  }
  // Ends the session on the server (HTTP DELETE).
  await transport.terminateSession();
  await client.close();
  return { ok, failed };
}

const results = await Promise.all([session("a"), session("b")]);
console.log(JSON.stringify(results));
