// The conversation's DOM: user and assistant bubbles, code cells (code, live output, the rich
// result: images, tables, folded errors, timings, files), tool calls and agent changes.
// Everything from the server is set as text (textContent), never as markup.
import { highlightPython } from "./highlight";

export interface CellResult {
  toolCallId: string;
  durationS: number;
  ok: boolean;
  timedOut: boolean;
  restarted: boolean;
  truncated: boolean;
  stdout: string;
  stderr: string;
  value?: string;
  error?: { type: string; message: string; traceback: string };
  images: { mimeType: string; data: string }[];
  tables: Table[];
  files: string[];
  finalAnswer?: string;
}

export interface Table {
  columns: string[];
  index: string[];
  rows: string[][];
  shape: [number, number];
  truncated: boolean;
}

export type Download = (path: string) => void;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The model's text without the code blocks (they are shown as cells). */
/** The code of a block the model is still writing (an open ``<execute>`` or ```python fence). */
export function draftOf(text: string): string {
  const open = /(?:<execute>|```(?:python|py)\n)(?![\s\S]*(?:<\/execute>|```))([\s\S]*)$/.exec(text);
  return open ? open[1].replace(/^\n/, "") : "";
}

export function proseOf(text: string): string {
  return text
    .replace(/<execute>[\s\S]*?(<\/execute>|$)/g, "")
    .replace(/```(?:python|py)\n[\s\S]*?(```|$)/g, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

class Cell {
  readonly root: HTMLElement;
  private readonly code: HTMLElement;
  private readonly live: HTMLElement;
  private readonly result: HTMLElement;
  private readonly meta: HTMLElement;
  private finished = false;
  toolResult = "";

  constructor(
    readonly id: string,
    readonly name: string,
    private readonly download: Download,
  ) {
    this.root = el("article", "cell");
    this.root.dataset.toolCallId = id;
    const head = el("header", "cell-head");
    head.append(el("span", "cell-kind", name === "execute" ? "Code" : `Tool: ${name}`));
    this.meta = el("span", "cell-meta", "running…");
    head.append(this.meta);
    this.code = el("pre", "code");
    this.code.tabIndex = 0;
    this.code.setAttribute("aria-label", "Code");
    this.live = el("pre", "output live");
    this.live.hidden = true;
    this.result = el("div", "cell-result");
    this.root.append(head, this.code, this.live, this.result);
  }

  setArgs(args: string): void {
    let code = args;
    try {
      const parsed = JSON.parse(args) as Record<string, unknown>;
      code = this.name === "execute" ? String(parsed.code ?? "") : JSON.stringify(parsed, null, 2);
    } catch {
      // partial or non-JSON arguments: show them as they are
    }
    this.code.replaceChildren(this.name === "execute" ? highlightPython(code) : code);
  }

  /** The run ended before this cell's result (cancelled, failed): say so. */
  settle(label: string): void {
    if (this.finished || this.toolResult) return;
    this.finished = true;
    this.meta.textContent = label;
    this.root.classList.add("stopped");
  }

  setLive(text: string): void {
    if (this.finished) return;
    this.live.hidden = !text;
    this.live.textContent = text;
  }

  /** The TOOL_CALL_RESULT text: shown unless a rich result arrives for the cell. */
  setToolResult(text: string): void {
    this.toolResult = text;
    if (this.finished) return;
    this.meta.textContent = "done";
    this.result.replaceChildren(el("pre", "output", text));
  }

  setResult(r: CellResult): void {
    this.finished = true;
    this.live.hidden = true;
    const parts: Node[] = [];
    if (r.stdout) parts.push(el("pre", "output stdout", r.stdout));
    if (r.stderr) parts.push(el("pre", "output stderr", r.stderr));
    if (r.value !== undefined && !r.tables.length) parts.push(el("pre", "output value", r.value));
    for (const t of r.tables) parts.push(renderTable(t));
    r.images.forEach((img, i) => {
      const image = el("img", "figure");
      image.src = `data:${img.mimeType};base64,${img.data}`;
      image.alt = `Figure ${i + 1} produced by the cell`;
      parts.push(image);
    });
    if (r.error) parts.push(renderError(r.error));
    if (r.timedOut) parts.push(el("p", "notice", r.restarted ? "Timed out: the session was restarted." : "Timed out."));
    if (r.truncated) parts.push(el("p", "notice", "Output truncated."));
    if (r.files.length) {
      const files = el("div", "files");
      files.append(el("span", "files-label", "Files written:"));
      for (const f of r.files) {
        const b = el("button", "file-button", `⬇ ${f}`);
        b.type = "button";
        b.setAttribute("aria-label", `Download ${f}`);
        b.addEventListener("click", () => this.download(f));
        files.append(b);
      }
      parts.push(files);
    }
    if (!parts.length) parts.push(el("p", "notice", "No output."));
    this.result.replaceChildren(...parts);
    this.root.classList.toggle("failed", !r.ok);
    this.meta.textContent = `${r.ok ? "ok" : "failed"} · ${formatSeconds(r.durationS)}`;
  }
}

function formatSeconds(s: number): string {
  if (s < 0.001) return "<1 ms";
  return s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(2)} s`;
}

function renderTable(t: Table): HTMLElement {
  const wrap = el("div", "table-wrap");
  wrap.tabIndex = 0;
  const table = el("table", "frame");
  const caption = el("caption", "", `${t.shape[0]} rows × ${t.shape[1]} columns${t.truncated ? " (first rows shown)" : ""}`);
  const head = el("tr");
  head.append(el("th", "index", ""));
  for (const c of t.columns) {
    const th = el("th", "", c);
    th.scope = "col";
    head.append(th);
  }
  const body = el("tbody");
  t.rows.forEach((row, i) => {
    const tr = el("tr");
    const th = el("th", "index", t.index[i] ?? "");
    th.scope = "row";
    tr.append(th, ...row.map((v) => el("td", /^-?[\d.,e+]+$/.test(v) ? "num" : "", v)));
    body.append(tr);
  });
  const thead = el("thead");
  thead.append(head);
  table.append(caption, thead, body);
  wrap.append(table);
  return wrap;
}

function renderError(e: { type: string; message: string; traceback: string }): HTMLElement {
  const details = el("details", "error");
  const summary = el("summary", "", `${e.type}: ${e.message}`);
  details.append(summary, el("pre", "traceback", e.traceback || `${e.type}: ${e.message}`));
  return details;
}

/** One thread's conversation view. */
export class Conversation {
  private readonly cells = new Map<string, Cell>();
  private readonly texts = new Map<
    string,
    { node: HTMLElement; body: HTMLElement; draft: HTMLElement; text: string }
  >();
  private readonly pending = new Map<string, CellResult>();
  agentName = "";

  constructor(
    readonly root: HTMLElement,
    private readonly download: Download,
  ) {}

  clear(): void {
    this.root.replaceChildren();
    this.cells.clear();
    this.texts.clear();
    this.pending.clear();
    this.agentName = "";
  }

  private add(node: HTMLElement): void {
    const stick = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 80;
    this.root.append(node);
    if (stick) this.root.scrollTop = this.root.scrollHeight;
  }

  user(text: string): void {
    const node = el("div", "msg user");
    node.append(el("div", "who", "You"), el("div", "body", text));
    this.add(node);
  }

  /** The active agent changed (a handoff, or the first agent of the thread). */
  agent(name: string): void {
    if (!name || name === this.agentName) return;
    const first = !this.agentName;
    this.agentName = name;
    if (!first) this.add(el("div", "handoff", `Handed off to ${name}`));
  }

  textStart(id: string): void {
    const node = el("div", "msg assistant");
    const body = el("div", "body");
    const draft = el("pre", "draft");
    draft.hidden = true;
    node.append(el("div", "who", this.agentName || "Assistant"), body, draft);
    node.hidden = true;
    this.texts.set(id, { node, body, draft, text: "" });
    this.add(node);
  }

  textDelta(id: string, delta: string): void {
    const t = this.texts.get(id);
    if (!t) return;
    t.text += delta;
    const prose = proseOf(t.text);
    const draft = draftOf(t.text);
    t.body.textContent = prose;
    t.body.hidden = !prose;
    t.draft.textContent = draft; // the code as the model writes it, until its cell appears
    t.draft.hidden = !draft;
    t.node.hidden = !prose && !draft;
  }

  assistant(text: string, name = ""): void {
    const prose = proseOf(text);
    if (!prose) return;
    const node = el("div", "msg assistant");
    node.append(el("div", "who", name || this.agentName || "Assistant"), el("div", "body", prose));
    this.add(node);
  }

  cellStart(id: string, name: string): void {
    if (this.cells.has(id)) return;
    for (const t of this.texts.values()) {
      t.draft.hidden = true; // the cell shows the finished code
      t.node.hidden = !proseOf(t.text);
    }
    const cell = new Cell(id, name, this.download);
    this.cells.set(id, cell);
    this.add(cell.root);
    const waiting = this.pending.get(id);
    if (waiting) this.cellResult(waiting);
  }

  cellArgs(id: string, args: string): void {
    this.cells.get(id)?.setArgs(args);
  }

  cellLive(id: string, text: string): void {
    this.cells.get(id)?.setLive(text);
  }

  toolResult(id: string, content: string): void {
    this.cells.get(id)?.setToolResult(content);
  }

  cellResult(r: CellResult): void {
    const cell = this.cells.get(r.toolCallId);
    if (!cell) {
      this.pending.set(r.toolCallId, r);
      return;
    }
    cell.setResult(r);
    if (r.finalAnswer !== undefined) this.assistant(r.finalAnswer);
  }

  /** The run is over: cells still waiting for a result are marked with ``label``. */
  settle(label: string): void {
    for (const cell of this.cells.values()) cell.settle(label);
  }

  notice(text: string, kind = "notice"): void {
    this.add(el("div", `banner ${kind}`, text));
  }
}
