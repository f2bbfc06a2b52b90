"""The numbers at the end of a batch: how many answered, failed, timed out; accuracy."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from codeact.batch._types import TaskResult


class Summary(BaseModel):
    """Counts over a set of results; ``accuracy`` is the mean score of the scored ones."""

    total: int = 0
    ok: int = 0
    failed: int = 0
    timeout: int = 0
    scored: int = 0
    accuracy: float | None = None
    elapsed_s: float = 0.0
    #: Tasks run this time (the others came from an earlier run's results).
    ran: int = 0

    @property
    def rate(self) -> float:
        """Tasks finished per second in this run."""
        return self.ran / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def lines(self) -> list[str]:
        """The summary as short lines for a terminal."""
        out = [f"{self.ran} task(s) run in {self.elapsed_s:.1f} s ({self.rate:.2f}/s)"]
        if self.ran != self.total:
            out.append(f"{self.total - self.ran} from an earlier run (resumed)")
        out.append(
            f"{self.total} task(s): {self.ok} ok, {self.failed} failed, {self.timeout} timed out"
        )
        if self.accuracy is not None:
            out.append(f"accuracy: {self.accuracy:.1%} over {self.scored} scored task(s)")
        return out


def summarize(
    results: Iterable[TaskResult], *, elapsed_s: float = 0.0, ran: int | None = None
) -> Summary:
    """Count ``results`` (and average their scores); ``ran`` of them ran this time (all when
    not given)."""
    s = Summary(elapsed_s=round(elapsed_s, 3))
    scores: list[float] = []
    for r in results:
        s.total += 1
        if r.status == "ok":
            s.ok += 1
        elif r.status == "timeout":
            s.timeout += 1
        else:
            s.failed += 1
        if r.score is not None:
            scores.append(r.score)
    s.ran = s.total if ran is None else ran
    if scores:
        s.scored = len(scores)
        s.accuracy = sum(scores) / len(scores)
    return s
