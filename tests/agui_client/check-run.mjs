// Runs one scenario against a codeact AG-UI server with the official @ag-ui/client
// (HttpAgent.runAgent validates every event and the ordering rules itself) and prints one
// JSON line: {ok, types, messages, error, status}.
import { HttpAgent } from "@ag-ui/client";

const [url, scenarioJson] = process.argv.slice(2);
const scenario = JSON.parse(scenarioJson);

async function runOnce(agentUrl, threadId, text) {
  const types = [];
  const agent = new HttpAgent({
    url: agentUrl,
    threadId,
    initialMessages: text ? [{ id: `u-${Date.now()}-${Math.random()}`, role: "user", content: text }] : [],
  });
  try {
    await agent.runAgent(
      { runId: `r-${Date.now()}-${Math.random()}`, tools: [], context: [], forwardedProps: {} },
      { onEvent: ({ event }) => { types.push(event.type); } },
    );
    const terminal = types.filter((t) => t === "RUN_FINISHED" || t === "RUN_ERROR");
    if (terminal.length !== 1 || types[types.length - 1] !== terminal[0]) {
      return { ok: false, types, error: "not exactly one terminal event, last" };
    }
    return { ok: true, types, messages: agent.messages };
  } catch (err) {
    return { ok: false, types, error: String(err), status: err.status };
  }
}

let result;
if (scenario.kind === "concurrent") {
  const [a, b] = await Promise.all([
    runOnce(url, scenario.threadId, "first"),
    new Promise((r) => setTimeout(r, 300)).then(() => runOnce(url, scenario.threadId, "second")),
  ]);
  result = { ok: a.ok && !b.ok && b.status === 409, first: a, second: b };
} else if (scenario.kind === "history") {
  result = await runOnce(url.replace(/\/$/, "") + "/history", scenario.threadId, null);
} else {
  result = await runOnce(url, scenario.threadId, scenario.text);
}
process.stdout.write(JSON.stringify(result) + "\n");
process.exit(result.ok ? 0 : 1);
