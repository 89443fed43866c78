"""The checkpointed fold runner: every outer fold run once (threads, or any joblib
backend), its outcome appended to a JSON-lines checkpoint as it finishes, and the
checkpoint read back on a rerun.

The checkpoint format: one JSON object a line, ``{"fingerprint": ..., "repeat": r,
"fold": f, "outcome": {...}}``, the fingerprint identifying the run (data, labels,
parameters). Records of another run refuse the file; a record that cannot be used is
skipped with a warning naming its line (its fold runs again); a last line cut short by
an interruption is dropped and redone.
"""

import json
import time
import warnings
from pathlib import Path

import numpy as np

from .results import EvaluationResult

__all__ = []


class FoldError(ValueError):
    """A fold that the protocol cannot run (its parts are too small); raised again by
    :func:`run_folds` as a ValueError naming the repetition and the fold."""


# -- running the folds -----------------------------------------------------------------
def _positioned(r, f, run, *args):
    """``(r, f, outcome)``, ``outcome`` being ``run(*args)`` with the fold's ``seconds``
    added (kept in the checkpoint); a ValueError or TypeError raised there (the
    protocol's, or a kernel's own on that training part) names repetition ``r`` and
    outer fold ``f``."""
    start = time.perf_counter()
    try:
        outcome = run(*args)
    except (ValueError, TypeError) as err:
        if type(err) not in (ValueError, TypeError, FoldError):  # a subclass may take other arguments
            raise
        kind = ValueError if type(err) is FoldError else type(err)
        raise kind(f"repetition {r + 1}, outer fold {f + 1}: {err}") from None
    return r, f, {**outcome, "seconds": time.perf_counter() - start}


def run_folds(run, data, options, tasks, n_jobs, checkpoint, fingerprint, progress, total, initial):
    """Run ``run(*data, train, test, inner_seed, *options)`` for every outer fold of
    ``tasks`` (threads), appending each outcome to the checkpoint as it finishes."""
    if not tasks:
        return {}
    from joblib import Parallel, delayed

    bar = None
    if progress:
        from .._utils.progress import progress_bar

        bar = progress_bar(True, total=total, initial=initial, desc="outer folds", unit="fold")
    parallel = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator_unordered")
    jobs = (delayed(_positioned)(r, f, run, *data, train, test, inner_seed, *options)
            for r, f, train, test, inner_seed in tasks)
    out = {}
    try:
        with _CheckpointWriter(checkpoint, fingerprint) as writer:
            for r, f, outcome in parallel(jobs):
                out[(r, f)] = outcome
                writer.write(r, f, outcome)
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return out


def aggregate(results, done, n_repeats, n_folds, n_C, elapsed, params):
    """The :class:`EvaluationResult` of a classification run from the outcomes of all
    its folds by ``(repeat, fold)``; ``done``: those taken from the checkpoint."""
    acc = np.empty((n_repeats, n_folds))
    chosen = np.empty((n_repeats, n_folds))
    val = np.empty((n_repeats, n_folds, n_C))
    n_fits = 0
    for (r, f), outcome in results.items():
        acc[r, f], chosen[r, f] = outcome["test_acc"], outcome["C"]
        val[r, f] = outcome["val_acc"]
        n_fits += outcome["n_fits"] if (r, f) not in done else 0
    return EvaluationResult(acc, chosen, val, n_fits, elapsed, params, n_resumed=len(done),
                            resumed_seconds=recorded_seconds(done),
                            resumed_fits=sum(done[key]["n_fits"] for key in sorted(done)))


def recorded_seconds(done):
    """Seconds recorded by the resumed folds, added in (repeat, fold) order."""
    return float(sum(float(done[key].get("seconds", 0.0)) for key in sorted(done)))


# -- checkpoints -----------------------------------------------------------------------
def _valid_fraction(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value <= 1.0


def _finite_nonnegative(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value < float("inf")


def _outcome_or_problem(record, n_repeats, n_folds, name, grid):
    """``(outcome, None)`` of a checkpoint record in place, or ``(None, why not)``: its
    position, its seconds, and its hyperparameter ``name`` in ``grid``."""
    if not isinstance(record, dict):
        return None, f"a record must be a JSON object, got {type(record).__name__}"
    for key in ("repeat", "fold"):
        value = record.get(key)
        limit = n_repeats if key == "repeat" else n_folds
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < limit:
            return None, f"{key} must be an integer in 0..{limit - 1}, got {value!r}"
    outcome = record.get("outcome")
    if not isinstance(outcome, dict):
        return None, "the record has no outcome"
    seconds = outcome.get("seconds", 0.0)  # absent from records written before it was kept
    if not _finite_nonnegative(seconds):
        return None, f"seconds must be a finite number >= 0, got {seconds!r}"
    if outcome.get(name) not in grid:
        return None, f"{name}={outcome.get(name)!r} is not in the grid"
    return outcome, None


def classification_record_problem(record, n_repeats, n_folds, C_grid):
    """Why a checkpoint record of a classification run cannot be used (None if it can)."""
    outcome, problem = _outcome_or_problem(record, n_repeats, n_folds, "C", C_grid)
    if problem:
        return problem
    val = outcome.get("val_acc")
    if not isinstance(val, list) or len(val) != len(C_grid) or not all(_valid_fraction(v) for v in val):
        return f"val_acc must be {len(C_grid)} accuracies in [0, 1]"
    if not _valid_fraction(outcome.get("test_acc")):
        return f"test_acc must be an accuracy in [0, 1], got {outcome.get('test_acc')!r}"
    n_fits = outcome.get("n_fits")
    if isinstance(n_fits, bool) or not isinstance(n_fits, int) or n_fits < 1:
        return f"n_fits must be a positive integer, got {n_fits!r}"
    return None


def regression_record_problem(record, n_repeats, n_folds, alpha_grid):
    """Why a checkpoint record of a regression run cannot be used (None if it can)."""
    outcome, problem = _outcome_or_problem(record, n_repeats, n_folds, "alpha", alpha_grid)
    if problem:
        return problem
    if not _finite_nonnegative(outcome.get("rmse")):
        return f"rmse must be a finite number >= 0, got {outcome.get('rmse')!r}"
    return None


def read_checkpoint(path, fingerprint, record_problem):
    """The outcomes of a checkpoint file by (repeat, fold); ``record_problem(record)``
    says why a record cannot be used (None if it can)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"checkpoint {path} is a directory; give a file path, e.g. {path / 'checkpoint.jsonl'}")
    if not path.exists():
        return {}
    done, skipped = {}, []
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ValueError(f"checkpoint {path} cannot be read: {err}") from None
    # line by line: a write cut short may end inside a multi-byte character
    lines = [_decoded(line) for line in data.splitlines()]
    for number, line in enumerate(lines, 1):
        if line is not None and not line.strip():
            continue
        unreadable = "not UTF-8" if line is None else None
        if unreadable is None:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                unreadable = "not JSON"
        if unreadable:
            if number < len(lines):  # the last line may be a write cut short: it is redone
                skipped.append(f"line {number}: {unreadable}")
            continue
        if isinstance(record, dict) and "fingerprint" in record and record["fingerprint"] != fingerprint:
            held = _records_of(lines, record["fingerprint"])
            raise ValueError(
                f"{path}, line {number}: checkpoint of another run (graphs, kernel, labels or parameters "
                f"differ); it holds {held} finished fold{'s' if held != 1 else ''} of that run, kept as they "
                "are: give this run another checkpoint file"
            )
        problem = record_problem(record)
        if problem is None and record.get("fingerprint") != fingerprint:
            problem = "the record has no fingerprint"
        if problem:
            skipped.append(f"line {number}: {problem}")
            continue
        done[(record["repeat"], record["fold"])] = record["outcome"]
    if skipped:
        warnings.warn(
            f"checkpoint {path}: skipped {len(skipped)} invalid record(s), those folds are run again: "
            + "; ".join(skipped[:5]) + (" ..." if len(skipped) > 5 else ""),
            UserWarning,
            stacklevel=3,
        )
    return done


def _decoded(line):
    """A checkpoint line (bytes) as text, or None if it is not UTF-8."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _records_of(lines, fingerprint):
    """How many lines of a checkpoint are records of the run ``fingerprint``."""
    count = 0
    for line in lines:
        try:
            record = json.loads(line)
        except (TypeError, json.JSONDecodeError):  # TypeError: a line that is not UTF-8 (None)
            continue
        count += isinstance(record, dict) and record.get("fingerprint") == fingerprint
    return count


class _CheckpointWriter:
    def __init__(self, path, fingerprint):
        self.path = Path(path) if path else None
        self.fingerprint = fingerprint
        self.fh = None

    def __enter__(self):
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size:
                with self.path.open("rb+") as fh:  # drop a record cut short by an interruption
                    data = fh.read()
                    if not data.endswith(b"\n"):
                        fh.truncate(data.rfind(b"\n") + 1)
            self.fh = self.path.open("a")
        return self

    def write(self, r, f, outcome):
        if self.fh is not None:
            record = {"fingerprint": self.fingerprint, "repeat": r, "fold": f, "outcome": outcome}
            self.fh.write(json.dumps(record) + "\n")
            self.fh.flush()

    def __exit__(self, *exc):
        if self.fh is not None:
            self.fh.close()
