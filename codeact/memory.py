"""Conversation memory.

``ChatMemory`` stores the messages of a conversation (typed turns: see ``codeact._messages``) and
returns a window of them for the next LLM call. The window is cut from the front to fit
``token_limit`` (estimated at four characters a token) and ``max_messages``, and always starts at
a user message, so a provider never receives a tool result without the call that asked for it.
"""

from __future__ import annotations

from collections.abc import Iterable

from codeact._messages import ChatMessage


def estimate_tokens(message: ChatMessage) -> int:
    """A cheap token estimate: about four characters a token, plus the tool calls' arguments
    (those the text already shows, such as a CodeAct block's code, are not counted twice)."""
    text = message.text
    size = len(text) + 4
    for call in message.tool_calls:
        args = call.arguments
        shown = bool(args) and all(isinstance(v, str) and v in text for v in args.values())
        size += len(call.name) + 8 + (0 if shown else len(str(args)))
    return size // 4 + 1


class ChatMemory:
    """A list of messages with a size limit applied when reading."""

    def __init__(
        self,
        messages: Iterable[ChatMessage] | None = None,
        *,
        token_limit: int | None = 24_000,
        max_messages: int | None = None,
    ) -> None:
        self._messages: list[ChatMessage] = list(messages or [])
        self.token_limit = token_limit
        self.max_messages = max_messages

    def get(self) -> list[ChatMessage]:
        """The most recent messages that fit the limits, starting at a user message."""
        msgs = self._messages
        start = 0
        if self.max_messages is not None and len(msgs) > self.max_messages:
            start = len(msgs) - self.max_messages
        if self.token_limit is not None:
            total = 0
            cut = len(msgs)
            for i in range(len(msgs) - 1, start - 1, -1):
                total += estimate_tokens(msgs[i])
                if total > self.token_limit:
                    break
                cut = i
            start = max(start, cut)
        window = msgs[start:]
        # Never start mid-turn: drop leading assistant/tool messages (and a leading system one
        # only when it was cut off from what it introduced).
        first_user = next((i for i, m in enumerate(window) if m.role == "user"), None)
        if start > 0 or (window and window[0].role != "system"):
            window = window[first_user:] if first_user is not None else []
        return list(window)

    def get_all(self) -> list[ChatMessage]:
        """Every stored message, regardless of limits."""
        return list(self._messages)

    def put(self, message: ChatMessage) -> None:
        """Append one message."""
        self._messages.append(message)

    def put_messages(self, messages: Iterable[ChatMessage]) -> None:
        """Append several messages."""
        self._messages.extend(messages)

    def set(self, messages: Iterable[ChatMessage]) -> None:
        """Replace the stored messages."""
        self._messages = list(messages)

    def reset(self) -> None:
        """Forget every message."""
        self._messages.clear()

    def __len__(self) -> int:
        return len(self._messages)


__all__ = ["ChatMemory", "estimate_tokens"]
