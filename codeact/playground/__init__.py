"""The playground page's built files (``static/``), served by ``codeact serve --ui`` at ``/ui``.

The sources are in ``playground/`` at the repository root (TypeScript, built with Vite); the
build is committed here so that installing codeact needs no Node.
"""
