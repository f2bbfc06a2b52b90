// The "Download notebook" button: POST {base}/notebook for the open thread and save the
// .ipynb the server answers (a blob: URL). Self-contained: main.ts only wires it up.
import type { Api } from "./api";

export function wireNotebookButton(
  api: Api,
  button: HTMLButtonElement,
  threadId: () => string,
  fail: (err: unknown) => void,
): void {
  button.addEventListener("click", () => {
    void (async () => {
      button.disabled = true;
      try {
        const id = threadId();
        const r = await fetch(`${api.base}/notebook`, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...api.headers() },
          body: JSON.stringify({ threadId: id }),
        });
        if (!r.ok) {
          const err = (await r.json().catch(() => ({}))) as { error?: string };
          throw new Error(err.error ?? `HTTP ${r.status}`);
        }
        const url = URL.createObjectURL(await r.blob());
        const a = document.createElement("a");
        a.href = url;
        a.download = `${id.replace(/[^A-Za-z0-9._-]+/g, "_")}.ipynb`;
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
      } catch (err) {
        fail(err);
      } finally {
        button.disabled = false;
      }
    })();
  });
}
