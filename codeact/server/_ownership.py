"""Who may run, connect to, cancel or read a thread: the one place the rule is written.

Without authentication a thread is keyed by ``(app, user, thread)`` and the user is whatever
the request says: every caller naming the key may use it. With authentication the user is the
principal, and a thread id is one thread per app: its owner is the principal who first wrote
to it (``SessionStore.thread_owner``), and nobody else may use it; the one-live-run rule then
applies to ``(app, thread)`` (the *claim*) whoever asks.
"""

from __future__ import annotations

from codeact.server._auth import Principal
from codeact.server.store import SessionKey, SessionStore

#: The thread the one-live-run rule applies to (the key, or ``(app, thread)`` when authenticated).
Claim = tuple[str, ...]


def principal_id(who: Principal | None) -> str | None:
    """The id the rule knows a caller by (None without authentication)."""
    return who.id if who is not None else None


class ThreadOwnership:
    """The ownership rule, with the owners learnt so far (from the store, or by a first write)."""

    def __init__(self, store: SessionStore, authenticated: bool) -> None:
        self.store = store
        self.authenticated = authenticated
        self._owners: dict[tuple[str, str], str] = {}

    def claim(self, key: SessionKey) -> Claim:
        """The thread the one-live-run rule applies to: with authentication a thread id is
        one thread per app (it has one owner)."""
        return (key.app, key.thread) if self.authenticated else key

    async def owner(self, key: SessionKey) -> str | None:
        """The thread's owner (None: a new thread); without authentication, the key's user."""
        if not self.authenticated:
            return key.user
        owner = self._owners.get((key.app, key.thread))
        if owner is None:
            owner = await self.store.thread_owner(key.app, key.thread)
            if owner is not None:
                self._owners[(key.app, key.thread)] = owner
        return owner

    async def allows(self, key: SessionKey, user: str | None) -> bool:
        """Whether the principal ``user`` may use the thread (a new thread: anyone). ``user``
        is None without authentication: every caller may."""
        return user is None or await self.owner(key) in (None, user)

    def follows(self, run_owner: str | None, user: str | None) -> bool:
        """Whether the principal ``user`` may read or cancel a live run ``run_owner`` started."""
        return user is None or run_owner == user

    def refuses_start(self, key: SessionKey, user: str | None, run_owner: str | None) -> bool:
        """Without waiting: whether the owner known so far (learnt, or that of the thread's
        live run, ``run_owner``) is someone other than the principal ``user``."""
        if user is None:
            return False
        known = self._owners.get((key.app, key.thread))
        return (known or run_owner) not in (None, user)

    def record(self, key: SessionKey, user: str) -> None:
        """``user`` wrote to the thread first: the owner from now on."""
        if self.authenticated:
            self._owners[(key.app, key.thread)] = user

    def forget(self, key: SessionKey) -> None:
        """The thread's session closed: its owner is read from the store when needed again."""
        self._owners.pop((key.app, key.thread), None)
