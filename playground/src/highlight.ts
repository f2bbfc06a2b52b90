// A small Python highlighter: text in, a DocumentFragment of spans out (never innerHTML, so
// code from the model cannot inject markup).

const KEYWORDS = new Set(
  ("False None True and as assert async await break class continue def del elif else except " +
    "finally for from global if import in is lambda nonlocal not or pass raise return try while " +
    "with yield match case").split(" "),
);
const BUILTINS = new Set(
  ("print len range list dict set tuple str int float bool sum min max sorted enumerate zip map " +
    "filter open abs round isinstance type any all reversed final_answer").split(" "),
);

const TOKEN = new RegExp(
  [
    String.raw`(?<comment>#[^\n]*)`,
    String.raw`(?<string>[rbfuRBFU]{0,2}(?:"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?))`,
    String.raw`(?<number>\b(?:0[xob][\da-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?j?)\b)`,
    String.raw`(?<decorator>@[\w.]+)`,
    String.raw`(?<name>[A-Za-z_]\w*)`,
  ].join("|"),
  "g",
);

export function highlightPython(code: string): DocumentFragment {
  const out = document.createDocumentFragment();
  let last = 0;
  for (const m of code.matchAll(TOKEN)) {
    const start = m.index ?? 0;
    if (start > last) out.append(code.slice(last, start));
    const groups = m.groups ?? {};
    let kind = "";
    if (groups.comment) kind = "com";
    else if (groups.string) kind = "str";
    else if (groups.number) kind = "num";
    else if (groups.decorator) kind = "dec";
    else if (groups.name && KEYWORDS.has(m[0])) kind = "kw";
    else if (groups.name && BUILTINS.has(m[0])) kind = "bi";
    if (kind) {
      const span = document.createElement("span");
      span.className = `tok-${kind}`;
      span.textContent = m[0];
      out.append(span);
    } else {
      out.append(m[0]);
    }
    last = start + m[0].length;
  }
  if (last < code.length) out.append(code.slice(last));
  return out;
}
