"""What the commands say about time and step limits, in the commands' own words (flags, not
Python arguments), and how they read ``--timeout``.

The library's errors advise Python callers (``timeout=``, ``max_iterations=``); a user of
``codeact run`` or ``codeact batch`` can only pass flags, so the commands print these instead.
"""

from __future__ import annotations

import argparse
import math

#: ``--timeout`` when not given: a remote model answers in seconds, so 10 minutes is plenty. The
#: embedded model shares the machine's CPU: on 2 busy cores one reply can take minutes (a first
#: cell after 625 s was seen at load 12, and the worst question of the answer-quality benchmark
#: took 1249 s), so it gets 30 minutes. Its run is bounded anyway: at most ``--max-steps``
#: replies of at most 768 tokens each, and ``--cell-timeout`` per code block.
DEFAULT_TIMEOUT_S = 600.0
EMBEDDED_TIMEOUT_S = 1800.0
NO_LIMIT_WORDS = ("0", "none", "off", "no")

TIMEOUT_HELP = (
    f"seconds for the whole {{what}}; 0 or 'none' for no limit (default: "
    f"{EMBEDDED_TIMEOUT_S:g} with the embedded model, {DEFAULT_TIMEOUT_S:g} with any other)"
)


def parse_timeout(text: str) -> float:
    """``--timeout``'s type: positive seconds, or 0 for no limit (``0``, ``none``, ``off``)."""
    if text.strip().lower() in NO_LIMIT_WORDS:
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds (0 or 'none' for no limit)"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give positive seconds, or 0 / 'none' for no limit"
        )
    return value


def resolve_timeout(given: float | None, model_spec: str) -> float | None:
    """The run timeout in seconds (None: no limit) from ``--timeout`` and the model."""
    if given is None:
        embedded = model_spec.split("@", 1)[0].split(":", 1)[0].strip().lower() == "local"
        return EMBEDDED_TIMEOUT_S if embedded else DEFAULT_TIMEOUT_S
    return given or None


def timeout_advice(limit: float) -> str:
    """What to do when a run hit ``--timeout``."""
    more = max(2 * limit, limit + 60)
    return (
        f"The run took longer than --timeout {limit:g} s and was stopped. Allow more time with "
        f"--timeout {more:g}, or no limit with --timeout 0."
    )


def step_limit_advice(limit: int) -> str:
    """What to do when a run used ``--max-steps`` without a final answer."""
    return (
        f"No final answer after --max-steps {limit} model steps. Allow more with --max-steps "
        f"{2 * limit}, or add --answer-at-limit to have the model answer from what it found."
    )
