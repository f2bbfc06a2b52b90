// Talking to `codeact serve`: the official AG-UI client for runs and history, plain fetch for
// cancel and the file routes. The bearer token (when the server wants one) comes from the
// `#token=` fragment or the token dialog and stays in this tab's sessionStorage.
import { HttpAgent } from "@ag-ui/client";
import type { AgentSubscriber, BaseEvent, RunAgentResult } from "@ag-ui/client";

const TOKEN_KEY = "codeact.token";

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function newId(prefix: string): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return prefix + "-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class Api {
  /** The run route, e.g. "/" (other routes hang below it): from the server's config.json,
   * or `?api=` on the page's URL. */
  runUrl: string;
  base: string;
  /** The server wants a bearer token. */
  auth = false;

  constructor(private readonly loc: Location) {
    this.runUrl = this.base = "";
    this.setPath(new URLSearchParams(loc.search).get("api") ?? "/");
    const fragment = new URLSearchParams(loc.hash.slice(1));
    const token = fragment.get("token");
    if (token) {
      sessionStorage.setItem(TOKEN_KEY, token);
      history.replaceState(null, "", loc.pathname + loc.search);
    }
  }

  private setPath(path: string): void {
    this.runUrl = new URL(path, this.loc.origin).toString();
    this.base = this.runUrl.replace(/\/$/, "");
  }

  /** Reads ``config.json`` next to the page (the run path, whether a token is needed). */
  async configure(): Promise<void> {
    const r = await fetch(new URL("config.json", this.loc.href).toString());
    if (!r.ok) return;
    const config = (await r.json()) as { path?: string; auth?: boolean };
    if (config.path && !new URLSearchParams(this.loc.search).get("api")) this.setPath(config.path);
    this.auth = Boolean(config.auth);
  }

  get token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  set token(value: string | null) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  }

  headers(): Record<string, string> {
    const token = this.token;
    return token ? { Authorization: `Bearer ${token}` } : {};
  }

  /** One run: the user's message (the server keeps the thread's history). */
  run(
    threadId: string,
    text: string,
    subscriber: AgentSubscriber,
  ): { done: Promise<RunAgentResult>; agent: HttpAgent } {
    const agent = new HttpAgent({
      url: this.runUrl,
      threadId,
      headers: this.headers(),
      initialMessages: [{ id: newId("user"), role: "user", content: text }],
    });
    const done = agent.runAgent(
      { runId: newId("run"), tools: [], context: [], forwardedProps: {} },
      subscriber,
    );
    return { done, agent };
  }

  /** The thread's history (MESSAGES_SNAPSHOT, then the cells), through the official client. */
  async history(threadId: string, onEvent: (event: BaseEvent) => void): Promise<void> {
    const agent = new HttpAgent({ url: `${this.base}/history`, threadId, headers: this.headers() });
    await agent.runAgent(
      { runId: newId("history"), tools: [], context: [], forwardedProps: {} },
      { onEvent: ({ event }) => onEvent(event) },
    );
  }

  async cancel(threadId: string): Promise<void> {
    await this.post("/cancel", { threadId });
  }

  async upload(threadId: string, file: File): Promise<{ name: string; size: number }> {
    const data = await toBase64(file);
    const r = await this.post("/files/upload", { threadId, name: file.name, data });
    return (await r.json()) as { name: string; size: number };
  }

  async download(threadId: string, path: string): Promise<Blob> {
    const r = await this.post("/files/download", { threadId, path });
    return await r.blob();
  }

  private async post(route: string, body: unknown): Promise<Response> {
    const r = await fetch(this.base + route, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...this.headers() },
      body: JSON.stringify(body),
    });
    if (!r.ok) {
      let message = `HTTP ${r.status}`;
      try {
        const err = (await r.json()) as { error?: string };
        message = err.error ?? message;
      } catch {
        // not JSON: keep the status
      }
      throw new ApiError(message, r.status);
    }
    return r;
  }
}

function toBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}
