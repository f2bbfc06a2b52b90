"""The package version, in a module of its own so that submodules can read it without importing
the package face (``codeact/__init__.py``, which loads the agents)."""

__version__ = "0.1.0"
