"""Helpers for testing agents built on codeact (fake servers speaking real protocols)."""

from codeact.testing.openai_server import FakeOpenAIServer, HTTPFailure, Malformed

__all__ = ["FakeOpenAIServer", "HTTPFailure", "Malformed"]
