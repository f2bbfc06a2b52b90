"""The kernel wire protocol, host side: frames (``frames``), the client that speaks them over any
byte stream (``client``) and what serving one cell takes (``cells``).

Process workers (``restricted._worker``) and container kernels (``kernel/kernel.py``) speak the
same protocol; a backend starts one of them, hands ``KernelClient`` a byte stream to it, and
keeps only the lifecycle (restart, why it died, how to interrupt it): see ``KernelSession``.

Empty on purpose: the sandboxed worker imports ``frames`` alone (stdlib only, cheap).
"""
