// The playground's controller: threads (kept in localStorage, history from the server), the
// composer (Enter sends), run state with a stop button, uploads and downloads, light/dark.
import type { BaseEvent } from "@ag-ui/client";
import { Api, ApiError, newId } from "./api";
import { Conversation, type CellResult } from "./view";
import { wireNotebookButton } from "./notebook";
import "./style.css";

interface ThreadInfo {
  id: string;
  title: string;
}

const THREADS_KEY = "codeact.threads";
const THEME_KEY = "codeact.theme";

function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`missing #${id}`);
  return node as T;
}

class App {
  private readonly api = new Api(window.location);
  private readonly log = byId<HTMLElement>("log");
  private readonly prompt = byId<HTMLTextAreaElement>("prompt");
  private readonly send = byId<HTMLButtonElement>("send");
  private readonly stop = byId<HTMLButtonElement>("stop");
  private readonly state = byId<HTMLElement>("run-state");
  private readonly agentLabel = byId<HTMLElement>("agent-name");
  private readonly title = byId<HTMLElement>("thread-title");
  private readonly list = byId<HTMLUListElement>("thread-list");
  private readonly attachments = byId<HTMLElement>("attachments");
  private readonly view = new Conversation(this.log, (path) => void this.download(path));
  private threads: ThreadInfo[] = [];
  private thread: ThreadInfo = { id: newId("thread"), title: "New thread" };
  private uploaded: string[] = [];
  private running = false;

  async start(): Promise<void> {
    await this.api.configure();
    if (this.api.auth && !this.api.token) this.api.token = await askToken();
    this.wire();
  }

  private wire(): void {
    try {
      this.threads = JSON.parse(localStorage.getItem(THREADS_KEY) ?? "[]") as ThreadInfo[];
    } catch {
      this.threads = [];
    }
    byId<HTMLFormElement>("composer").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.submit();
    });
    this.prompt.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        void this.submit();
      }
    });
    this.stop.addEventListener("click", () => void this.cancel());
    byId<HTMLButtonElement>("new-thread").addEventListener("click", () => this.newThread());
    byId<HTMLInputElement>("file").addEventListener("change", (e) => {
      const input = e.target as HTMLInputElement;
      void this.uploadFiles(Array.from(input.files ?? []));
      input.value = "";
    });
    this.setupTheme();
    wireNotebookButton(this.api, byId("notebook"), () => this.thread.id, (e) => this.fail(e));
    this.renderThreads();
    const wanted = new URLSearchParams(window.location.search).get("thread");
    const known = this.threads.find((t) => t.id === wanted);
    if (wanted) void this.open(known ?? { id: wanted, title: wanted });
    this.prompt.focus();
  }

  // -- threads --------------------------------------------------------------------------------
  private renderThreads(): void {
    this.list.replaceChildren(
      ...this.threads.map((t) => {
        const li = document.createElement("li");
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = t.title;
        b.dataset.threadId = t.id;
        if (t.id === this.thread.id) b.setAttribute("aria-current", "true");
        b.addEventListener("click", () => void this.open(t));
        li.append(b);
        return li;
      }),
    );
  }

  private remember(): void {
    this.showInUrl();
    if (!this.threads.some((t) => t.id === this.thread.id)) this.threads.unshift(this.thread);
    localStorage.setItem(THREADS_KEY, JSON.stringify(this.threads.slice(0, 50)));
    this.renderThreads();
  }

  private newThread(): void {
    if (this.running) return;
    this.thread = { id: newId("thread"), title: "New thread" };
    this.title.textContent = this.thread.title;
    const url = new URL(window.location.href);
    url.searchParams.delete("thread");
    history.replaceState(null, "", url.pathname + url.search);
    this.view.clear();
    this.agentLabel.textContent = "";
    this.setState("idle");
    this.renderThreads();
    this.prompt.focus();
  }

  /** The open thread in the address (``?thread=``), so a reload shows it again. */
  private showInUrl(): void {
    const url = new URL(window.location.href);
    url.searchParams.set("thread", this.thread.id);
    history.replaceState(null, "", url.pathname + url.search);
  }

  private async open(t: ThreadInfo): Promise<void> {
    if (this.running) return;
    this.thread = t;
    this.showInUrl();
    this.title.textContent = t.title;
    this.view.clear();
    this.renderThreads();
    this.setState("loading");
    try {
      await this.withToken(() => this.api.history(t.id, (e) => this.historyEvent(e)));
      this.setState("idle");
    } catch (err) {
      this.fail(err);
    }
  }

  private historyEvent(event: BaseEvent): void {
    const e = event as BaseEvent & Record<string, unknown>;
    if (e.type === "MESSAGES_SNAPSHOT") {
      for (const m of (e.messages as Record<string, unknown>[]) ?? []) this.historyMessage(m);
    } else if (e.type === "CUSTOM" && e.name === "codeact.cells") {
      for (const cell of (e.value as CellResult[]) ?? []) {
        this.view.cellResult({ ...cell, finalAnswer: undefined }); // the answer is a message
      }
    }
  }

  private historyMessage(m: Record<string, unknown>): void {
    const content = typeof m.content === "string" ? m.content : "";
    if (m.role === "user") this.view.user(content);
    else if (m.role === "assistant") {
      this.view.assistant(content, typeof m.name === "string" ? m.name : "");
      const calls = (m.toolCalls as { id: string; function: { name: string; arguments: string } }[]) ?? [];
      for (const c of calls) {
        this.view.cellStart(c.id, c.function.name);
        this.view.cellArgs(c.id, c.function.arguments);
      }
    } else if (m.role === "tool") {
      this.view.toolResult(String(m.toolCallId), content);
    }
  }

  // -- runs -----------------------------------------------------------------------------------
  private async submit(): Promise<void> {
    let text = this.prompt.value.trim();
    if (!text || this.running) return;
    if (this.uploaded.length) {
      text += `\n\n(Uploaded files in the working directory: ${this.uploaded.join(", ")})`;
      this.uploaded = [];
      this.attachments.replaceChildren();
    }
    this.prompt.value = "";
    if (this.thread.title === "New thread") {
      this.thread.title = text.split("\n")[0].slice(0, 60);
      this.title.textContent = this.thread.title;
    }
    this.remember();
    this.view.user(text);
    this.setRunning(true);
    this.setState("running");
    try {
      await this.withToken(() => this.runOnce(text));
    } catch (err) {
      this.fail(err);
    } finally {
      this.setRunning(false);
      this.prompt.focus();
    }
  }

  private async runOnce(text: string): Promise<void> {
    let outcome = "done";
    const { done } = this.api.run(this.thread.id, text, {
      onEvent: ({ event }) => {
        const result = this.liveEvent(event);
        if (result) outcome = result;
      },
    });
    await done;
    if (outcome !== "done") this.view.settle(outcome === "cancelled" ? "stopped" : "not finished");
    if (outcome === "cancelled") this.view.notice("The run was stopped.");
    this.setState(outcome);
  }

  /** Applies one live event; returns the run's outcome on a terminal event. */
  private liveEvent(event: BaseEvent): string | undefined {
    const e = event as BaseEvent & Record<string, unknown>;
    const v = this.view;
    switch (e.type) {
      case "CUSTOM":
        if (e.name === "codeact.agent") {
          const name = String((e.value as { agentName?: string }).agentName ?? "");
          v.agent(name);
          this.agentLabel.textContent = name;
        } else if (e.name === "codeact.cell") v.cellResult(e.value as CellResult);
        break;
      case "TEXT_MESSAGE_START":
        v.textStart(String(e.messageId));
        break;
      case "TEXT_MESSAGE_CONTENT":
        v.textDelta(String(e.messageId), String(e.delta));
        break;
      case "TOOL_CALL_START":
        v.cellStart(String(e.toolCallId), String(e.toolCallName));
        break;
      case "TOOL_CALL_ARGS":
        this.args.set(String(e.toolCallId), (this.args.get(String(e.toolCallId)) ?? "") + String(e.delta));
        v.cellArgs(String(e.toolCallId), this.args.get(String(e.toolCallId)) ?? "");
        break;
      case "TOOL_CALL_RESULT":
        v.toolResult(String(e.toolCallId), String(e.content));
        break;
      case "ACTIVITY_SNAPSHOT":
      case "ACTIVITY_DELTA":
        this.activity(e);
        break;
      case "RUN_ERROR":
        v.notice(String(e.message), "error");
        return "error";
      case "RUN_FINISHED": {
        const outcome = e.outcome as { type?: string } | undefined;
        return outcome?.type === "cancelled" || this.cancelling ? "cancelled" : "done";
      }
    }
    return undefined;
  }

  private readonly args = new Map<string, string>();
  private readonly outputs = new Map<string, { toolCallId: string; output: string }>();
  private cancelling = false;

  private activity(e: Record<string, unknown>): void {
    const id = String(e.messageId);
    if (e.type === "ACTIVITY_SNAPSHOT") {
      this.outputs.set(id, e.content as { toolCallId: string; output: string });
    } else {
      const current = this.outputs.get(id);
      for (const op of (e.patch as { path: string; value: unknown }[]) ?? []) {
        if (current && op.path === "/output") current.output = String(op.value);
      }
    }
    const out = this.outputs.get(id);
    if (out) this.view.cellLive(out.toolCallId, out.output);
  }

  private async cancel(): Promise<void> {
    if (!this.running) return;
    this.cancelling = true;
    this.setState("cancelling");
    this.stop.disabled = true;
    try {
      await this.api.cancel(this.thread.id);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) this.fail(err);
    }
  }

  private setRunning(on: boolean): void {
    this.running = on;
    this.cancelling = on ? false : this.cancelling;
    this.send.disabled = on;
    this.stop.disabled = !on;
    document.body.classList.toggle("busy", on);
  }

  private setState(state: string): void {
    this.state.textContent = state;
    this.state.dataset.state = state;
  }

  private fail(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.view.notice(message, "error");
    this.setState("error");
  }

  /** Runs ``fn``; on 401 asks for the token once and tries again. */
  private async withToken<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status !== 401) throw err;
      this.api.token = await askToken();
      return await fn();
    }
  }

  // -- files ----------------------------------------------------------------------------------
  private async uploadFiles(files: File[]): Promise<void> {
    for (const file of files) {
      try {
        const r = await this.withToken(() => this.api.upload(this.thread.id, file));
        this.remember();
        this.uploaded.push(r.name);
        const chip = document.createElement("span");
        chip.className = "chip";
        chip.textContent = `📎 ${r.name} (${r.size} bytes)`;
        this.attachments.append(chip);
      } catch (err) {
        this.fail(err);
      }
    }
    this.prompt.focus();
  }

  private async download(path: string): Promise<void> {
    try {
      const blob = await this.withToken(() => this.api.download(this.thread.id, path));
      const url = URL.createObjectURL(blob);
      const a = document.createElement("a");
      a.href = url;
      a.download = path.split("/").pop() ?? path;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      this.fail(err);
    }
  }

  // -- colour scheme --------------------------------------------------------------------------
  private setupTheme(): void {
    const button = byId<HTMLButtonElement>("theme");
    const order = ["auto", "light", "dark"];
    const apply = (theme: string) => {
      if (theme === "auto") delete document.documentElement.dataset.theme;
      else document.documentElement.dataset.theme = theme;
      button.textContent = `Theme: ${theme}`;
      localStorage.setItem(THEME_KEY, theme);
    };
    apply(localStorage.getItem(THEME_KEY) ?? "auto");
    button.addEventListener("click", () => {
      const now = localStorage.getItem(THEME_KEY) ?? "auto";
      apply(order[(order.indexOf(now) + 1) % order.length]);
    });
  }
}

function askToken(): Promise<string> {
  const dialog = byId<HTMLDialogElement>("token-dialog");
  const input = byId<HTMLInputElement>("token");
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(input.value.trim()), { once: true });
    dialog.showModal();
    input.focus();
  });
}

void new App().start();
